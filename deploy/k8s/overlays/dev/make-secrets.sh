#!/usr/bin/env bash
# Makes the Secrets the dev overlay references, with random passwords, in namespace healbench-dev (or $1).
# Idempotent: an existing Secret is kept, so the database and the broker keep accepting their passwords.
#   deploy/k8s/overlays/dev/make-secrets.sh [NAMESPACE]
# LLM keys are taken from this shell's environment when set (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY);
# nothing here is ever written to a file.
set -euo pipefail

NS="${1:-healbench-dev}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REALMS_DIR="$(cd "$HERE/../../../keycloak" && pwd)"

random() { head -c 24 /dev/urandom | base64 | tr -d '/+=' ; }

exists() { kubectl -n "$NS" get secret "$1" >/dev/null 2>&1; }

make() {
  local name="$1"; shift
  if exists "$name"; then
    echo "make-secrets: $name exists, kept" >&2
    return
  fi
  kubectl -n "$NS" create secret generic "$name" "$@" >/dev/null
  echo "make-secrets: $name made" >&2
}

kubectl get namespace "$NS" >/dev/null 2>&1 || kubectl create namespace "$NS" >/dev/null

make healbench-service-auth --from-literal=key="$(head -c 32 /dev/urandom | base64)"
make healbench-database --from-literal=username=healbench --from-literal=password="$(random)"
broker_password="$(random)"
make healbench-broker --from-literal=username=healbench --from-literal=password="$broker_password" \
  --from-literal=uri=http://rabbitmq:15672 \
  --from-literal=management-url="http://healbench:${broker_password}@rabbitmq:15672/"
make keycloak-admin --from-literal=username=admin --from-literal=password="$(random)"

llm_args=()
for variable in ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY; do
  if [[ -n "${!variable:-}" ]]; then
    llm_args+=("--from-literal=${variable}=${!variable}")
  fi
done
make healbench-llm-keys "${llm_args[@]}"

realm_args=()
for realm in "$REALMS_DIR"/healbench-*-realm.json; do
  realm_args+=("--from-file=$(basename "$realm")=$realm")
done
make keycloak-realms "${realm_args[@]}"
