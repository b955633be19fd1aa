#!/usr/bin/env bash
# Builds the Temporal server (`go.temporal.io/server/cmd/server`) and its SQL tool
# (`cmd/tools/sql`, installed as temporal-sql-tool) at the version of docker-compose.yml's server
# image, from the Go module proxy, into .cache/temporal-cluster/<version>/. A version already built
# is reused (a version bump in docker-compose.yml builds the new one). The first build takes about
# 4 minutes on 2 cores; later runs take no time.
#
# Prints the version folder on its last line. Needs `go` (any version: GOTOOLCHAIN brings the one
# the server needs through the module proxy).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=versions.sh
. "$root/scripts/cluster/versions.sh"

folder="$root/.cache/temporal-cluster/$TEMPORAL_SERVER_VERSION"
binaries="$folder/bin"
if [ -x "$binaries/temporal-server" ] && [ -x "$binaries/temporal-sql-tool" ] && [ -d "$folder/schema" ]; then
  echo "$folder"
  exit 0
fi

# Go's own install folder when it is not on PATH (a non-login shell, CI).
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null || { echo 'go is required to build the Temporal server' >&2; exit 1; }
export GOTOOLCHAIN="$TEMPORAL_GO_TOOLCHAIN" GOFLAGS=-buildvcs=false
started=$(date +%s)
echo "Building Temporal server v$TEMPORAL_SERVER_VERSION with $GOTOOLCHAIN (about 4 minutes the first time) ..." >&2

# A throwaway module that requires the server module, so both commands build from the exact
# dependency versions the server release pins.
module="$folder/module"
rm -rf "$module"
mkdir -p "$module" "$binaries"
cd "$module"
go mod init dar-temporal-cluster >/dev/null 2>&1
# Both packages at the pinned version (a bare `go get` of a package would move to the latest).
go get "go.temporal.io/server/cmd/server@v$TEMPORAL_SERVER_VERSION" \
  "go.temporal.io/server/cmd/tools/sql@v$TEMPORAL_SERVER_VERSION" >&2
# The SQL tool uses urfave/cli v1 where the server uses v2; fetch it so go.sum has it.
go mod download github.com/urfave/cli >&2
resolved="$(go list -m -f '{{.Version}}' go.temporal.io/server)"
if [ "$resolved" != "v$TEMPORAL_SERVER_VERSION" ]; then
  echo "Expected go.temporal.io/server v$TEMPORAL_SERVER_VERSION, resolved $resolved" >&2
  exit 1
fi
go build -o "$binaries/temporal-server.partial" go.temporal.io/server/cmd/server
go build -o "$binaries/temporal-sql-tool.partial" go.temporal.io/server/cmd/tools/sql

# The schema files ship in the module: copy them beside the binaries (the module cache may be
# cleaned independently).
source_schema="$(go list -m -f '{{.Dir}}' go.temporal.io/server)/schema/postgresql/v12"
rm -rf "$folder/schema"
mkdir -p "$folder/schema"
cp -R "$source_schema/." "$folder/schema/"
chmod -R u+w,a+rX "$folder/schema"
mv "$binaries/temporal-server.partial" "$binaries/temporal-server"
mv "$binaries/temporal-sql-tool.partial" "$binaries/temporal-sql-tool"
echo "Built in $(($(date +%s) - started)) s." >&2
echo "$folder"
