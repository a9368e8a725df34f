"""Benchmarks of healrt (run `python3 healrt/bench/overhead.py`)."""
