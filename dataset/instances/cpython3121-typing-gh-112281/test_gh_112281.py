"""Union members may be unhashable (Annotated with list metadata); building the union must
still work and still drop exact duplicates."""
import typing


def test_union_of_annotated_with_unhashable_metadata():
    tagged = typing.Annotated[int, ["positive"]]

    u = typing.Union[tagged, str, tagged]
    v = tagged | None

    assert typing.get_args(u) == (tagged, str)
    assert typing.get_args(v) == (tagged, type(None))
    assert typing.get_args(typing.get_args(u)[0]) == (int, ["positive"])
