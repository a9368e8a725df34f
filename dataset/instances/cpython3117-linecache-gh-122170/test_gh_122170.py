"""gh-122170: linecache given a file name that os.stat() refuses (NUL byte)."""
import linecache


def test_getline_name_with_nul_byte_returns_empty():
    assert linecache.getline("no\x00such_module.py", 1) == ""


def test_checkcache_drops_entry_with_nul_byte(tmp_path):
    name = str(tmp_path / "gone\x00.py")
    linecache.cache[name] = (3, 1.0, ["x = 1\n"], name)
    try:
        linecache.checkcache(name)
        assert name not in linecache.cache
    finally:
        linecache.cache.pop(name, None)


def test_getline_of_real_file_still_works(tmp_path):
    path = tmp_path / "real.py"
    path.write_text("first\nsecond\n")

    assert linecache.getline(str(path), 2) == "second\n"
