"""`python -m bench.guardeval` (PYTHONPATH=healrt:dataset/tools), what `./healbench guard eval` runs."""

import sys

from .cli import main

sys.exit(main())
