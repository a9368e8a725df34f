"""A process may run with no standard error at all (sys.stderr is None: pythonw, a daemon with its
descriptors closed). numpy 2.0.0's f2py binds `sys.stderr.write` when its modules are imported,
so importing numpy.f2py there raises AttributeError."""
import importlib
import io
import sys

import numpy
import pytest


def _f2py_modules() -> list[str]:
    return [name for name in sys.modules if name == "numpy.f2py" or name.startswith("numpy.f2py.")]


@pytest.fixture
def f2py_unimported():
    """numpy.f2py not imported yet; afterwards sys.stderr, sys.modules and numpy's attribute as
    they were (pytest's capture sets sys.stderr again before the test runs, so the test itself
    removes it)."""
    stderr = sys.stderr
    modules = {name: sys.modules.pop(name) for name in _f2py_modules()}
    attribute = vars(numpy).pop("f2py", None)
    try:
        yield
    finally:
        sys.stderr = stderr
        for name in _f2py_modules():
            del sys.modules[name]
        sys.modules.update(modules)
        vars(numpy).pop("f2py", None)
        if attribute is not None:
            numpy.f2py = attribute


def test_f2py_imports_and_reports_without_stderr(f2py_unimported):
    sys.stderr = None
    f2py = importlib.import_module("numpy.f2py")
    # Its error messages go nowhere while there is no standard error ...
    f2py.cfuncs.errmess("no standard error\n")
    f2py.auxfuncs.errmess("no standard error\n")
    # ... and to the standard error of the moment once there is one.
    sys.stderr = captured = io.StringIO()
    f2py.cfuncs.errmess("one\n")
    f2py.f2py2e.errmess("two\n")
    assert captured.getvalue() == "one\ntwo\n"
