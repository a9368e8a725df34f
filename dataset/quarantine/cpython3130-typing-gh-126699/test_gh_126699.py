"""gh-126699: a Protocol that also inherits from collections.abc.AsyncIterator."""
import collections.abc
import typing


class _Clock:
    def __aiter__(self):
        return self

    async def __anext__(self):
        raise StopAsyncIteration

    def interval(self):
        return 1.0


def test_protocol_may_extend_async_iterator():
    @typing.runtime_checkable
    class Ticker(collections.abc.AsyncIterator, typing.Protocol):
        def interval(self) -> float:
            ...

    assert issubclass(Ticker, collections.abc.AsyncIterator)
    assert isinstance(_Clock(), Ticker)
    assert not isinstance(iter([]), Ticker)


def test_non_protocol_base_still_rejected():
    class Plain:
        pass

    try:
        class Bad(Plain, typing.Protocol):
            pass
    except TypeError:
        pass
    else:
        raise AssertionError("a Protocol must not inherit from a plain class")
