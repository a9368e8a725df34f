#!/usr/bin/env bash
# Makes pytest available to every interpreter healrt supports, so healrt/run-tests.sh can run its
# suite on each: pyenv 3.12.1 and 3.13.0 get it from the local wheelhouse, Debian's python3 (3.11.2)
# from apt. pyenv 3.11.7 already has it. Idempotent and quiet: an interpreter that already imports
# pytest is left alone; an interpreter that is not installed is skipped.
set -euo pipefail

WHEELHOUSE="${HEALBENCH_WHEELHOUSE:-file:///opt/pypi/simple}"

has_pytest() {
    "$1" -c 'import pytest' >/dev/null 2>&1
}

# Runs a command silently; its output is shown only if it fails.
quietly() {
    local log
    log="$(mktemp)"
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

for version in 3.12.1 3.13.0; do
    python="/root/.pyenv/versions/$version/bin/python"
    [[ -x "$python" ]] || continue
    if ! has_pytest "$python"; then
        quietly "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
            --index-url "$WHEELHOUSE" pytest
    fi
done

# Debian's interpreter also lacks the stdlib's own test suite, which real-code tests run.
debian_missing=()
if [[ -x /usr/bin/python3 ]]; then
    has_pytest /usr/bin/python3 || debian_missing+=(python3-pytest)
    stdlib_tests="$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')/test/test_configparser.py"
    [[ -f "$stdlib_tests" ]] || debian_missing+=("libpython$(/usr/bin/python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-testsuite")
fi
if ((${#debian_missing[@]})); then
    sudo_cmd=()
    [[ "$(id -u)" -eq 0 ]] || sudo_cmd=(sudo)
    quietly "${sudo_cmd[@]}" apt-get update -qq
    quietly "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debian_missing[@]}"
fi
