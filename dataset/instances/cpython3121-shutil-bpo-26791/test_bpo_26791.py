"""Moving a symlink into the very directory it points at must move the link, not treat the
link and the directory as one file and try to rename it over the directory."""
import os
import shutil


def test_move_symlink_into_its_target_directory(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "link"
    os.symlink(target, link)

    result = shutil.move(str(link), str(target))

    moved = target / "link"
    assert result == str(moved)
    assert not os.path.lexists(link)
    assert os.path.islink(moved)
    assert os.readlink(moved) == str(target)
