"""In() over a container of values that cannot be ordered against each other: on a
failed check voluptuous sorts the container for its message and raises TypeError
instead of the Invalid error the caller expects."""
import pytest
from voluptuous import In, Invalid, Schema


def test_in_with_mixed_type_container_reports_invalid():
    schema = Schema(In([1, "auto", 2.5]))
    assert schema("auto") == "auto"
    with pytest.raises(Invalid) as caught:
        schema("manual")
    assert "value must be one of" in str(caught.value)
    assert "'auto'" in str(caught.value)
