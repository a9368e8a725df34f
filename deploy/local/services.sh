#!/usr/bin/env bash
# Makes sure the machine's PostgreSQL and RabbitMQ are up (they are installed on this machine kind,
# but may have stopped), and that the Python test dependencies are importable.
set -euo pipefail

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "services: starting PostgreSQL" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432 >/dev/null || { echo "services: PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }

if ! (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; then
  echo "services: starting RabbitMQ" >&2
  rabbitmq-server -detached
  for _ in $(seq 1 60); do (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null && break; sleep 1; done
fi
(exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null || { echo "services: RabbitMQ is not reachable on 127.0.0.1:5672" >&2; exit 1; }
echo "services: PostgreSQL and RabbitMQ are up" >&2
