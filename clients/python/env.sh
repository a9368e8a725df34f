#!/usr/bin/env bash
# Makes the Python clients runnable and prints the interpreter to run them with, as its last line:
#   PY=$(clients/python/env.sh | tail -1) && "$PY" -m healbench_client grpc --endpoint ... 
#
# A venv in the cache (never in the repository) with pyenv's Python 3.11.7 (the wheelhouses'
# compiled wheels are cp311), the pinned packages from the two local wheelhouses (the public index
# is unreachable; naming both keeps pip from trying it), this package installed editable, and the
# gRPC stubs generated from the repository's protos. Idempotent: when nothing changed it only
# compares two stamps and checks the stubs' hash. Fails with a message saying what is missing.
#
# Environment: HEALBENCH_CLIENT_CACHE (default ~/.cache/healbench/clients), HEALBENCH_CLIENT_PYTHON
# (an interpreter to use instead of pyenv's 3.11.7), HEALBENCH_WHEELHOUSE (index URLs, space or
# comma separated, first one the --index-url; default the two /opt wheelhouses), PYENV_ROOT.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${HEALBENCH_CLIENT_CACHE:-$HOME/.cache/healbench/clients}"
venv="$cache/venv"
python_version=3.11.7
# One place for the pins; pyproject.toml lists the same ones for readers and for pip's metadata.
packages=(grpcio==1.84.0 grpcio-tools==1.84.0 protobuf==7.36.2 googleapis-common-protos==1.75.5
          mcp==2.3.0 pytest==9.1.1)

fail() { echo "clients/python/env.sh: $*" >&2; exit 1; }

find_python() {
  if [[ -n "${HEALBENCH_CLIENT_PYTHON:-}" ]]; then
    echo "$HEALBENCH_CLIENT_PYTHON"; return
  fi
  local root="${PYENV_ROOT:-}"
  if [[ -z "$root" ]] && command -v pyenv >/dev/null 2>&1; then root="$(pyenv root)"; fi
  echo "${root:-$HOME/.pyenv}/versions/$python_version/bin/python"
}

indexes() {
  local urls
  read -r -a urls <<<"$(echo "${HEALBENCH_WHEELHOUSE:-file:///opt/pypi/simple file:///opt/pypi-more/simple}" | tr ',' ' ')"
  echo "--index-url ${urls[0]}"
  local url
  for url in "${urls[@]:1}"; do echo "--extra-index-url $url"; done
}

mkdir -p "$cache"
# Two callers at once (parallel test forks) must not build the same venv together.
exec 9>"$cache/.env.lock"
flock 9

python="$(find_python)"
[[ -x "$python" ]] || fail "Python $python_version not found at $python (pyenv install $python_version, or set HEALBENCH_CLIENT_PYTHON)"
actual="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[[ "$actual" == "3.11" ]] || fail "$python is Python $actual; the wheelhouses' compiled wheels need 3.11"

# The venv is rebuilt from scratch when the interpreter or the pins change (a half-updated venv is
# worse than a 10-second rebuild); the package's editable install is redone when the checkout moves.
deps_stamp="$(printf '%s\n' "$python" "$("$python" -VV)" "${packages[@]}" "$(indexes)" | sha256sum | cut -c1-16)"
pkg_stamp="$(printf '%s\n' "$here" "$(sha256sum "$here/pyproject.toml")" | sha256sum | cut -c1-16)"
log="$cache/pip.log"

pip_install() {
  # shellcheck disable=SC2046  # indexes() prints options split on purpose
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        --no-warn-script-location $(indexes) "$@" >>"$log" 2>&1; then
    echo "clients/python/env.sh: pip install $* failed; the end of $log:" >&2
    tail -n 25 "$log" >&2
    exit 1
  fi
}

if [[ ! -x "$venv/bin/python" || "$(cat "$venv/.deps-stamp" 2>/dev/null)" != "$deps_stamp" ]]; then
  echo "clients/python/env.sh: creating $venv (Python $python_version, from the local wheelhouses)" >&2
  rm -rf "$venv"
  : >"$log"
  "$python" -m venv "$venv" >>"$log" 2>&1 || { tail -n 25 "$log" >&2; fail "python -m venv $venv failed"; }
  pip_install "${packages[@]}"
  echo "$deps_stamp" >"$venv/.deps-stamp"
  rm -f "$venv/.pkg-stamp"
fi

if [[ "$(cat "$venv/.pkg-stamp" 2>/dev/null)" != "$pkg_stamp" ]]; then
  # No build isolation: setuptools is already in the venv (grpcio-tools needs it), and isolation
  # would fetch it from an index again. No deps: they are the pins above.
  pip_install --no-build-isolation --no-deps -e "$here"
  echo "$pkg_stamp" >"$venv/.pkg-stamp"
fi

# The stubs' directory is keyed by the protos' hash: regenerated only when a proto changed.
HEALBENCH_CLIENT_CACHE="$cache" "$venv/bin/python" -m healbench_client gen-stubs --quiet \
  || fail "generating the gRPC stubs failed (see above)"

echo "$venv/bin/python"
