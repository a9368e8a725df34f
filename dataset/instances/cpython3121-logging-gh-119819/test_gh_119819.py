"""gh-119819: dictConfig must accept a QueueHandler whose 'queue' is a
multiprocessing queue object (queue-like, but not a queue.Queue)."""
import logging
import logging.config
import logging.handlers
import multiprocessing


def test_queue_handler_accepts_multiprocessing_queue():
    mpq = multiprocessing.Queue()
    try:
        logging.config.dictConfig({
            "version": 1,
            "disable_existing_loggers": False,
            "handlers": {
                "sink": {"class": "logging.NullHandler"},
                "to_mp": {"class": "logging.handlers.QueueHandler",
                          "queue": mpq, "handlers": ["sink"]},
            },
            "loggers": {"hb.gh119819": {"handlers": ["to_mp"], "level": "INFO",
                                        "propagate": False}},
        })
        logger = logging.getLogger("hb.gh119819")
        [handler] = logger.handlers
        assert isinstance(handler, logging.handlers.QueueHandler)
        assert handler.queue is mpq
        for h in list(logger.handlers):
            logger.removeHandler(h)
    finally:
        mpq.close()
        mpq.join_thread()
