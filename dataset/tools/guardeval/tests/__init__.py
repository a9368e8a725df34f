"""Tests of the controlled suite: `python -m pytest dataset/tools/guardeval/tests` with clients/python/env.sh's interpreter."""
