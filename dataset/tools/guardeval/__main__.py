"""`python3 -m guardeval` (PYTHONPATH=dataset/tools), what `./healbench guard eval` runs."""

import sys

from .cli import main

sys.exit(main())
