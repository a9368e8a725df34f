"""find_library must not crash when the compiler's linker trace names a library file that does
not exist (ld suggests 'rename it to liblibgomp.a' when asked for -llibgomp)."""
import os
import stat

import ctypes.util

FAKE_GCC = """#!/bin/sh
echo "/usr/bin/ld: cannot find -llibgomp: No such file or directory"
echo "/usr/bin/ld: note to link with {lib} use -l:libgomp.a or rename it to liblibgomp.a"
echo "collect2: error: ld returned 1 exit status"
exit 1
"""


def test_find_library_ignores_missing_file_in_linker_trace(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    gcc = bindir / "gcc"
    gcc.write_text(FAKE_GCC.format(lib=tmp_path / "libgomp.a"))
    gcc.chmod(gcc.stat().st_mode | stat.S_IXUSR)
    # Only the fake compiler is reachable, so the result does not depend on this machine's gcc.
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.chdir(tmp_path)
    assert not os.path.exists(tmp_path / "liblibgomp.a")

    assert ctypes.util.find_library("libgomp") is None
