"""A class may define __wrapped__ as a property for its instances; inspect.signature of the
class itself must not follow that property object as if it were the wrapped callable."""
import inspect


def test_signature_of_class_with_wrapped_property():
    class Proxy:
        def __init__(self, target, *, strict=False):
            self._target = target

        @property
        def __wrapped__(self):
            return self._target

    sig = inspect.signature(Proxy)

    assert list(sig.parameters) == ["target", "strict"]
    assert sig.parameters["strict"].kind is inspect.Parameter.KEYWORD_ONLY
    assert inspect.unwrap(Proxy(len)) is len
