"""DataFrame.stack(level=[], future_stack=True): pandas 2.3.3 asks the columns to drop every
level that is not stacked, which is all of them, and Index._drop_level_numbers raises ValueError."""
import pandas as pd


def test_stacking_no_level_leaves_the_frame_as_it_is():
    frame = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    stacked = frame.stack(level=[], future_stack=True)
    assert stacked.equals(frame)
    assert list(stacked.columns) == ["a", "b"]
