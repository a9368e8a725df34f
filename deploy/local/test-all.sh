#!/usr/bin/env bash
# Runs every test of the repository against real services: the Python runtime's tests, the dataset
# tooling's tests and a sample validation, the reference clients' tests, the Maven build with all Java tests (unit, Quarkus,
# standalone and distributed runs), then a sample of HealGuard's controlled suite (after the build:
# its static stage runs the guard-service just built).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export HEALBENCH_HOME="$PWD"

# Each stage's header says when it began, so a CI log shows where the wall time goes.
started=$(date +%s)
stage() { echo "== [$(( $(date +%s) - started )) s] $*" >&2; }

# First what the tests need and a fresh machine lacks (bubblewrap, pytest on every interpreter,
# Debian's stdlib tests), installed where missing; exit 3 naming what cannot be.
PYTHONPATH="$PWD/dataset/tools" python3 -m hbdata preflight --for tests
deploy/local/services.sh
# Only the Java tests use Keycloak, so it starts while the Python stages run and the Java stage waits
# for it: about a minute on a fresh machine, which first fetches its distribution; 15 to 40 s once cached.
keycloak_log="$(mktemp)"
trap 'rm -f "$keycloak_log"' EXIT
deploy/local/keycloak.sh start >"$keycloak_log" 2>&1 &
keycloak_start=$!

stage "healrt tests (the installed package, on every supported interpreter: healrt/noxfile.py)"
python3 -m nox -f healrt/noxfile.py

stage "dataset tooling tests (hbdata, and a quick run of healrt's overhead benchmark)"
python3 -m pytest -q -p no:cacheprovider dataset/tools/tests dataset/tools/overhead/tests

stage "dataset check (a random stratified sample; the seed is printed)"
./healbench dataset validate --sample 20 --seed "$RANDOM"

stage "reference clients' tests (their environment from the local wheelhouses, clients/python/env.sh)"
client_python="$(clients/python/env.sh | tail -1)"
(cd clients/python && "$client_python" -m pytest -q -p no:cacheprovider tests)

stage "Java build and tests"
keycloak_status=0
wait "$keycloak_start" || keycloak_status=$?
cat "$keycloak_log" >&2
if (( keycloak_status != 0 )); then
  echo "test-all: Keycloak did not start (keycloak.sh exited with $keycloak_status); the Java tests need it" >&2
  exit "$keycloak_status"
fi
mvn -B verify "$@"

stage "protobuf contracts: buf lint, STANDARD (proto/buf.yaml; after the build, whose jars hold google/rpc)"
proto/lint.sh

stage "HealGuard controlled suite (a random sample; the seed is printed)"
./healbench guard eval --sample 40 --seed "$RANDOM" --require-static
"$client_python" -m pytest -q -p no:cacheprovider dataset/tools/guardeval/tests  # grpcio and guard.proto's stubs
stage "all tests passed"
