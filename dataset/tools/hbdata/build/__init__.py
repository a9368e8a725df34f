"""`hbdata build --subject NAME`: the injected tier's builder (dataset/README.md, "Injected tier").

Mine mutants in the subject's project code (mine.py), run each against the tests that cover its
module (suiterun.py), pass the failures through the funnel (funnel.py), pick a balanced set of
candidates, check each for determinism through the real validation path, and with `--write`
write the accepted ones as instance directories. Prints the funnel's counts at every stage.

A stdlib subject is mined one module at a time: each module is its own instance's project root
(as in the hand-written stdlib instances), so healrt instruments only that module. Of the modules
the harness itself imports (pytest, healrt), only those the catalog lists (checked to run through
the sys.modules swap) are mined: others would give the harness and the test two different copies
of, say, `enum` (suiterun.py). Frozen and built-in modules cannot be overlaid at all.

One job a module: command.py (the command and its report), pipeline.py (the course),
selection.py (units, test files, the sample), runs.py (test runs and their cache), picking.py
(the balanced pick and the determinism check), staging.py (instance directories).
"""
from __future__ import annotations

from .command import DEFAULTS, add_arguments, build_command, main
from .picking import Accepted, BuildError
from .pipeline import build

__all__ = ["DEFAULTS", "Accepted", "BuildError", "add_arguments", "build", "build_command", "main"]
