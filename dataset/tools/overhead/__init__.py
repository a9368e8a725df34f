"""healrt's overhead benchmark: `PYTHONPATH=dataset/tools python3 -m overhead [--quick]`."""
