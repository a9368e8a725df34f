#!/usr/bin/env bash
# Makes the machine ready for the repository's test suites: every interpreter healrt supports
# (pyenv 3.11.7, 3.12.1, 3.13.0 and Debian's python3 3.11.2) with pytest, Debian's stdlib test
# suite, bubblewrap and patch. A thin wrapper: the one list of what is needed, and how it is
# installed, is hbdata's preflight (dataset/tools/hbdata/preflight.py, docs/dataset.md §7).
# Quiet and quick when all is present; exit 3 (with what is missing and how to get it) when not.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHONPATH="$repo/dataset/tools${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m hbdata preflight --for tests "$@"
