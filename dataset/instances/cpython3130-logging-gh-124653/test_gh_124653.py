"""gh-124653: dictConfig must accept, as a QueueHandler 'queue', any object that
offers the queue operations logging actually uses (put_nowait/get), such as a
queue.SimpleQueue, not only objects with the full queue.Queue API."""
import logging
import logging.config
import logging.handlers
import queue


def test_queue_handler_accepts_simple_queue():
    sq = queue.SimpleQueue()
    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {"to_sq": {"class": "logging.handlers.QueueHandler", "queue": sq}},
        "loggers": {"hb.gh124653": {"handlers": ["to_sq"], "level": "INFO",
                                    "propagate": False}},
    })
    logger = logging.getLogger("hb.gh124653")
    try:
        [handler] = logger.handlers
        assert isinstance(handler, logging.handlers.QueueHandler)
        assert handler.queue is sq
        logger.info("via %s", "simple queue")
        assert sq.get_nowait().getMessage() == "via simple queue"
    finally:
        for h in list(logger.handlers):
            logger.removeHandler(h)
