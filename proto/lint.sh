#!/usr/bin/env bash
# Lints the .proto files with buf (STANDARD, less the three rules that contradict Google's AIPs: proto/buf.yaml).
# buf comes from the npm registry, pinned, into the user's cache; the google/rpc files our protos import come from the
# proto-google-common-protos jar Maven already fetched for the build. Fails on any finding; exit 3 when buf cannot be had.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

BUF_VERSION=1.75.0
tools="${XDG_CACHE_HOME:-$HOME/.cache}/healbench/buf-$BUF_VERSION"
buf="$tools/node_modules/.bin/buf"
if [[ ! -x "$buf" ]]; then
  mkdir -p "$tools"
  if ! npm install --silent --no-audit --no-fund --prefix "$tools" "@bufbuild/buf@$BUF_VERSION" >&2; then
    echo "proto/lint.sh: could not install @bufbuild/buf@$BUF_VERSION from the npm registry" >&2
    exit 3
  fi
fi

jar=$(ls -1 "$HOME"/.m2/repository/com/google/api/grpc/proto-google-common-protos/*/proto-google-common-protos-*.jar 2>/dev/null \
  | grep -v -- '-sources' | sort -V | tail -1 || true)
if [[ -z "$jar" ]]; then
  echo "proto/lint.sh: no proto-google-common-protos jar in ~/.m2: build the project first (mvn install)" >&2
  exit 3
fi
rm -rf target/buf-deps && mkdir -p target/buf-deps
(cd target/buf-deps && unzip -q -o "$jar" 'google/rpc/*.proto')

"$buf" lint src/main/proto
echo "proto/lint.sh: buf $BUF_VERSION lint (STANDARD) found nothing"
