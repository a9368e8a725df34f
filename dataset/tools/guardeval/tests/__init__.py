"""Tests of the controlled suite: python3 -m pytest dataset/tools/guardeval/tests."""
