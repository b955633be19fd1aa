#!/bin/sh
# One-shot job of docker-compose.yml (image temporalio/admin-tools), once the server answers:
# creates the namespace and registers the search attributes agent jobs publish
# (DAR_SEARCH_ATTRIBUTES: "Name=Type ..."; a worker refuses a namespace without them). Safe to
# run again: what exists is kept. The temporal CLI reads TEMPORAL_ADDRESS from the environment.
set -eu
: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS is required}"
: "${DAR_SEARCH_ATTRIBUTES:?DAR_SEARCH_ATTRIBUTES is required}"
namespace="${TEMPORAL_NAMESPACE:-default}"

# Runs a command until it succeeds (a new namespace takes a few seconds to be usable).
retry() {
  attempt=1
  until "$@"; do
    if [ "$attempt" -ge 30 ]; then
      echo "Giving up: $*"
      return 1
    fi
    attempt=$((attempt + 1))
    sleep 2
  done
}

retry temporal operator cluster health
if temporal operator namespace describe --namespace "$namespace" >/dev/null 2>&1; then
  echo "Namespace $namespace exists."
else
  retry temporal operator namespace create --namespace "$namespace"
fi

for pair in $DAR_SEARCH_ATTRIBUTES; do
  name="${pair%%=*}"
  type="${pair#*=}"
  if temporal operator search-attribute list --namespace "$namespace" 2>/dev/null | grep -qw "$name"; then
    echo "Search attribute $name is registered."
  else
    retry temporal operator search-attribute create --namespace "$namespace" --name "$name" --type "$type"
  fi
done
echo "Namespace $namespace is ready for agent jobs."
