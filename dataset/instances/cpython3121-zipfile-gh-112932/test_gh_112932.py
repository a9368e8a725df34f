"""extractall() of an archive holding a bare '/' directory entry must extract the other
members; the '/' entry only names the extraction root."""
import zipfile


def test_extractall_with_root_directory_entry(tmp_path):
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("/", b"")
        zf.writestr("docs/readme.txt", b"hello")
        zf.writestr("top.txt", b"top")

    out = tmp_path / "out"
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(out)

    assert (out / "docs" / "readme.txt").read_bytes() == b"hello"
    assert (out / "top.txt").read_bytes() == b"top"
    assert sorted(p.name for p in out.iterdir()) == ["docs", "top.txt"]
