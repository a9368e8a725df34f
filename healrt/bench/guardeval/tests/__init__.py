"""Tests of the controlled suite (run from healrt/: python3 -m pytest bench/guardeval/tests)."""
