# Versions of the real Temporal cluster the cluster tests run: the server version is read from
# docker-compose.yml's `temporalio/server` image so the tests and the compose file cannot drift.
# shellcheck shell=bash
_cluster_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TEMPORAL_SERVER_VERSION="$(sed -n 's/^ *image: temporalio\/server:\([0-9.]*\) *$/\1/p' "$_cluster_root/docker-compose.yml" | head -n 1)"
if [ -z "$TEMPORAL_SERVER_VERSION" ]; then
  echo 'docker-compose.yml names no temporalio/server image version' >&2
  exit 1
fi
# The Go toolchain the server release needs (newer than most machines' go); the module proxy serves it.
TEMPORAL_GO_TOOLCHAIN=go1.27.3
export TEMPORAL_SERVER_VERSION TEMPORAL_GO_TOOLCHAIN
