"""A smoke test of the benchmark: python3 -m pytest dataset/tools/overhead/tests."""
