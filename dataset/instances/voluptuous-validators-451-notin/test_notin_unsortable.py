"""NotIn() over a container of values that cannot be ordered against each other: when the
value is found voluptuous sorts the container for its message and raises TypeError
instead of the Invalid error the caller expects."""
import pytest
from voluptuous import Invalid, NotIn, Schema


def test_notin_with_mixed_type_container_reports_invalid():
    schema = Schema(NotIn([0, "root", None]))
    assert schema("alice") == "alice"
    with pytest.raises(Invalid) as caught:
        schema("root")
    assert "value must not be one of" in str(caught.value)
    assert "'root'" in str(caught.value)
