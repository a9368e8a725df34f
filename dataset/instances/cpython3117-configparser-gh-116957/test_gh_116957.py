"""When read_string stops at a duplicate section, the options read before it must still be
usable: multi-line values have to be joined into strings, not left as lists of lines."""
import configparser

import pytest

SOURCE = """\
[paths]
search = /usr/lib
  /usr/local/lib
[paths]
other = 1
"""


def test_values_read_before_duplicate_section_are_strings():
    parser = configparser.ConfigParser()

    with pytest.raises(configparser.DuplicateSectionError):
        parser.read_string(SOURCE)

    assert parser.get("paths", "search") == "/usr/lib\n/usr/local/lib"
    assert parser["paths"]["search"].splitlines() == ["/usr/lib", "/usr/local/lib"]
    assert not parser.has_option("paths", "other")
