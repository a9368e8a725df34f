"""`python3 -m hbdata.build`: the same as `hbdata build`."""
import sys

from .command import main

sys.exit(main())
