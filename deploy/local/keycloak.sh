#!/usr/bin/env bash
# Runs a local Keycloak (dev mode, no TLS, in-memory H2 store) on 127.0.0.1:8180 with the two
# HealBench tenant realms imported from deploy/keycloak/. Idempotent:
#   keycloak.sh start   start it unless the acme realm already answers; wait until it is ready
#   keycloak.sh stop    stop the Keycloak this script started
#   keycloak.sh status  exit 0 when the acme realm answers
# The distribution is fetched once from Maven Central into ${HEALBENCH_CACHE:-$HOME/.cache/healbench}/keycloak.
set -euo pipefail

KC_VERSION=26.7.3
KC_PORT=8180
KC_HOST=127.0.0.1
READY_URL="http://${KC_HOST}:${KC_PORT}/realms/healbench-acme"
READY_TIMEOUT_S=180

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REALMS_DIR="$(cd "$HERE/../keycloak" && pwd)"
CACHE="${HEALBENCH_CACHE:-$HOME/.cache/healbench}/keycloak"
DIST="$CACHE/keycloak-$KC_VERSION"
PID_FILE="$CACHE/keycloak.pid"
LOG_FILE="$CACHE/keycloak.log"

log() { echo "keycloak.sh: $*" >&2; }

answers() {
  curl -fs -o /dev/null --max-time 3 "$READY_URL"
}

fetch_dist() {
  if [[ -x "$DIST/bin/kc.sh" ]]; then
    return
  fi
  local zip="$CACHE/keycloak-quarkus-dist-$KC_VERSION.zip"
  if [[ ! -f "$zip" ]]; then
    log "fetching org.keycloak:keycloak-quarkus-dist:$KC_VERSION"
    (cd "$CACHE" && mvn -B -q dependency:copy \
      -Dartifact="org.keycloak:keycloak-quarkus-dist:$KC_VERSION:zip" \
      -DoutputDirectory="$CACHE")
  fi
  # Unzip into a scratch directory first so an interrupted unzip never leaves a half dist behind.
  rm -rf "$CACHE/unzip.tmp"
  unzip -q "$zip" -d "$CACHE/unzip.tmp"
  mv "$CACHE/unzip.tmp/keycloak-$KC_VERSION" "$DIST"
  rm -rf "$CACHE/unzip.tmp"
}

start() {
  if answers; then
    log "already running at $READY_URL"
    return
  fi
  mkdir -p "$CACHE"
  # Two callers starting at once (e.g. two test JVMs) must not launch two servers.
  exec 9>"$CACHE/start.lock"
  flock 9
  if answers; then
    log "already running at $READY_URL"
    return
  fi
  fetch_dist
  mkdir -p "$DIST/data/import"
  # --import-realm skips realms that already exist in Keycloak's store: when a realm file changed,
  # drop the dev store so the new definitions are imported.
  local realm
  for realm in "$REALMS_DIR"/healbench-*-realm.json; do
    if ! cmp -s "$realm" "$DIST/data/import/$(basename "$realm")"; then
      rm -rf "$DIST/data/h2"
    fi
  done
  cp "$REALMS_DIR"/healbench-*-realm.json "$DIST/data/import/"
  log "starting Keycloak $KC_VERSION on $KC_HOST:$KC_PORT (log: $LOG_FILE)"
  # setsid: the server outlives the caller (a test JVM) and can be reused by the next one.
  setsid "$DIST/bin/kc.sh" start-dev --http-port="$KC_PORT" --http-host="$KC_HOST" --import-realm \
    >"$LOG_FILE" 2>&1 9>&- < /dev/null &
  echo $! >"$PID_FILE"
  local waited=0
  until answers; do
    if ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
      log "Keycloak exited during start-up; last log lines:"
      tail -n 30 "$LOG_FILE" >&2
      exit 1
    fi
    if (( waited >= READY_TIMEOUT_S )); then
      log "not ready after ${READY_TIMEOUT_S}s; last log lines:"
      tail -n 30 "$LOG_FILE" >&2
      exit 1
    fi
    sleep 2
    waited=$((waited + 2))
  done
  log "ready after ~${waited}s"
}

stop() {
  if [[ ! -f "$PID_FILE" ]]; then
    log "not started by this script"
    return
  fi
  local pid
  pid="$(cat "$PID_FILE")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 30); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid"
    fi
    log "stopped (pid $pid)"
  fi
  rm -f "$PID_FILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) answers ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
