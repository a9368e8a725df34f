"""`python -m healbench_client ...`: see `healbench_client.cli`."""

from healbench_client.cli import main

raise SystemExit(main())
