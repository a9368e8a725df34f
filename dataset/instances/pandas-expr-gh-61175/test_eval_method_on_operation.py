"""DataFrame.eval calling a method on a parenthesised operation, `(x + y).dropna()`: pandas 2.3.3's
visitor resolves the object of an attribute access with `self.visit(value).value`, but visiting
`x + y` gives a BinOp node, which has no `.value` (only names and constants do), so the lookup
raises AttributeError before anything is computed."""
import pandas as pd


def test_eval_calls_a_method_on_the_result_of_an_operation():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [10.0, None, 30.0]})
    total = frame.eval("(x + y).dropna()", engine="python")
    assert list(total.index) == [0, 2]
    assert list(total) == [11.0, 33.0]
    assert frame.eval("(x * 2).sum()", engine="python") == 12.0
