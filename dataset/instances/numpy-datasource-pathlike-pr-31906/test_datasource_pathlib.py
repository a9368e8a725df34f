"""DataSource names its files by path; numpy 2.4.1's abspath and open treat that path as a str (they
split it and parse it as a URL), so a pathlib.Path raises AttributeError although its docstrings
promise pathlib support."""
import gzip

import numpy as np


def test_datasource_takes_pathlib_paths(tmp_path):
    plain = tmp_path / "values.txt"
    plain.write_text("1 2 3\n")
    packed = tmp_path / "more.txt.gz"
    with gzip.open(packed, "wt") as f:
        f.write("4 5 6\n")
    ds = np.lib.npyio.DataSource(tmp_path)
    assert ds.abspath(plain) == str(plain)
    assert ds.exists(plain)
    assert not ds.exists(tmp_path / "missing.txt")
    with ds.open(plain) as f:
        assert f.read() == "1 2 3\n"
    # compressed files are recognised by the suffix of a Path too
    with ds.open(packed) as f:
        assert f.read() == b"4 5 6\n"
    # and the module-level convenience function
    with np.lib._datasource.open(plain, destpath=tmp_path) as f:
        assert f.read() == "1 2 3\n"
