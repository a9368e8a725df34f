#!/usr/bin/env bash
# Runs every test of the repository against real services: the Python runtime's tests, the dataset
# check, and the Maven build with all Java tests (unit, Quarkus, standalone and distributed runs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export HEALBENCH_HOME="$PWD"

deploy/local/services.sh
deploy/local/python-envs.sh
deploy/local/keycloak.sh start

echo "== healrt tests (every supported interpreter)" >&2
healrt/run-tests.sh

echo "== dataset check" >&2
python3 dataset/tools/check_instances.py

echo "== Java build and tests" >&2
mvn -B verify "$@"
