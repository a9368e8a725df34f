"""repr() of a QuerystringParser: python-multipart 0.0.5 formats an attribute the parser
never sets (keep_blank_values) and raises AttributeError."""
from multipart.multipart import QuerystringParser


def test_repr_of_querystring_parser():
    parser = QuerystringParser(strict_parsing=True, max_size=1024)
    text = repr(parser)
    assert text.startswith("QuerystringParser(")
    assert "strict_parsing=True" in text
    assert "max_size=1024" in text
