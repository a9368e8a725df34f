#!/usr/bin/env bash
# Runs healrt's test suite on every interpreter healrt supports: pyenv 3.11.7, Debian's 3.11.2,
# pyenv 3.12.1 and 3.13.0 (pytest is installed where missing by hbdata's preflight, through
# deploy/local/python-envs.sh).
# Extra arguments go to pytest. Fails if the suite fails on any of them; missing interpreters fail too.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

../deploy/local/python-envs.sh || exit 1

interpreters=(
    /root/.pyenv/versions/3.11.7/bin/python
    /usr/bin/python3
    /root/.pyenv/versions/3.12.1/bin/python
    /root/.pyenv/versions/3.13.0/bin/python
)
# Two interpreters at a time (the machine has 2 cores); each one's output is printed when it ends.
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
run_on() {
    local py=$1 log="$logs/$(echo "$1" | tr / _)"
    {
        echo "== healrt tests on $py ($("$py" -c 'import platform; print(platform.python_version())' 2>/dev/null || echo missing))"
        "$py" -m pytest tests -q -p no:cacheprovider "${@:2}"
    } >"$log" 2>&1
    local status=$?
    cat "$log" >&2
    return $status
}
failed=()
for ((i = 0; i < ${#interpreters[@]}; i += 2)); do
    pids=()
    for py in "${interpreters[@]:i:2}"; do
        run_on "$py" "$@" &
        pids+=("$!:$py")
    done
    for entry in "${pids[@]}"; do
        wait "${entry%%:*}" || failed+=("${entry#*:}")
    done
done
if ((${#failed[@]})); then
    echo "healrt tests failed on: ${failed[*]}" >&2
    exit 1
fi
