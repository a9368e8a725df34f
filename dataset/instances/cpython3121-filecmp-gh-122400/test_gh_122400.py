"""gh-122400: filecmp.cmpfiles() given a file name that os.stat() refuses (NUL byte)."""
import filecmp


def _two_dirs(tmp_path):
    left, right = tmp_path / "left", tmp_path / "right"
    left.mkdir()
    right.mkdir()
    for d in (left, right):
        (d / "same.txt").write_text("identical\n")
    (left / "differs.txt").write_text("one\n")
    (right / "differs.txt").write_text("two\n")
    return str(left), str(right)


def test_cmpfiles_name_with_nul_byte_is_an_error_entry(tmp_path):
    left, right = _two_dirs(tmp_path)

    match, mismatch, errors = filecmp.cmpfiles(
        left, right, ["same.txt", "bad\x00name", "differs.txt"], shallow=False)

    assert match == ["same.txt"]
    assert mismatch == ["differs.txt"]
    assert errors == ["bad\x00name"]
