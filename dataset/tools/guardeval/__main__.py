"""`python -m guardeval` with clients/python/env.sh's interpreter (PYTHONPATH=dataset/tools), what `./healbench guard eval` runs."""

import sys

from .cli import main

sys.exit(main())
