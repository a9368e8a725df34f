"""dictConfig must accept a QueueHandler entry without a 'handlers' key: its listener then
simply has no downstream handlers."""
import logging
import logging.config
import logging.handlers
import queue


def test_queue_handler_without_handlers_key():
    q = queue.Queue()
    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {"to_queue": {"class": "logging.handlers.QueueHandler", "queue": q}},
        "loggers": {"hb.gh111615": {"handlers": ["to_queue"], "level": "INFO", "propagate": False}},
    })
    logger = logging.getLogger("hb.gh111615")
    try:
        [handler] = logger.handlers
        assert isinstance(handler, logging.handlers.QueueHandler)
        assert handler.listener.handlers == ()
        logger.info("queued %d", 1)
        assert q.get_nowait().getMessage() == "queued 1"
    finally:
        for h in list(logger.handlers):
            logger.removeHandler(h)
