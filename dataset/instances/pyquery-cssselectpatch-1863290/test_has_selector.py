"""The :has() selector with cssselect >= 1.2 (the version Debian ships): cssselect calls
XPathExpr.join with new keyword arguments that pyquery 1.4.3's override does not accept,
raising TypeError."""
from pyquery import PyQuery


def test_has_selector_finds_parents_of_matching_children():
    doc = PyQuery(
        "<div>"
        '<p id="a"><b>bold</b></p>'
        '<p id="b">plain</p>'
        '<p id="c"><i>x</i><b>y</b></p>'
        "</div>"
    )
    assert [p.get("id") for p in doc("p:has(b)")] == ["a", "c"]
