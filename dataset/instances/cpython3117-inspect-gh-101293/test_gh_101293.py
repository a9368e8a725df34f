"""gh-101293: inspect.signature() of an instance whose class sets __call__ to a
static method wrapping a builtin function."""
import inspect
import operator


class Adder:
    # Called as Adder()(a, b): the static method is not bound to the instance.
    __call__ = staticmethod(operator.add)


def test_signature_of_instance_with_static_builtin_call():
    adder = Adder()
    assert adder(2, 3) == 5

    sig = inspect.signature(adder)

    assert list(sig.parameters) == ["a", "b"]
    assert all(p.kind is inspect.Parameter.POSITIONAL_ONLY
               for p in sig.parameters.values())
