"""gh-121723: dictConfig must accept, as a QueueHandler 'queue', a user-defined
object that implements the queue API without deriving from queue.Queue."""
import collections
import logging
import logging.config
import logging.handlers


class DequeQueue:
    """Minimal unbounded FIFO with the queue.Queue method names."""

    def __init__(self):
        self._items = collections.deque()

    def put(self, item, block=True, timeout=None):
        self._items.append(item)

    def put_nowait(self, item):
        self.put(item)

    def get(self, block=True, timeout=None):
        return self._items.popleft()

    def get_nowait(self):
        return self.get()

    def empty(self):
        return not self._items

    def full(self):
        return False

    def qsize(self):
        return len(self._items)

    def task_done(self):
        pass

    def join(self):
        pass


def test_queue_handler_accepts_user_queue_object():
    dq = DequeQueue()
    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {
            "sink": {"class": "logging.NullHandler"},
            "to_dq": {"class": "logging.handlers.QueueHandler",
                      "queue": dq, "handlers": ["sink"]},
        },
        "loggers": {"hb.gh121723": {"handlers": ["to_dq"], "level": "INFO",
                                    "propagate": False}},
    })
    logger = logging.getLogger("hb.gh121723")
    try:
        [handler] = logger.handlers
        assert handler.queue is dq
        logger.info("queued %d", 7)
        assert dq.get_nowait().getMessage() == "queued 7"
    finally:
        for h in list(logger.handlers):
            logger.removeHandler(h)
