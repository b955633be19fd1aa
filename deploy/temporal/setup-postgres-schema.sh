#!/bin/sh
# One-shot job of docker-compose.yml (image temporalio/admin-tools): creates Temporal's two
# PostgreSQL databases and brings their schemas to the version of the admin-tools image. Safe to
# run again: `create` keeps an existing database, `setup-schema -v 0.0` keeps a newer version, and
# `update-schema` applies only the versions not applied yet. Upgrading the server image (and the
# admin-tools image with it) and running this again migrates the schemas.
#
# Outside the image (scripts/cluster/cluster.mjs runs it against a local PostgreSQL):
# TEMPORAL_SCHEMA_DIR is the folder of the server version's postgresql/v12 schemas, and
# temporal-sql-tool is looked up on PATH.
set -eu
: "${POSTGRES_SEEDS:?POSTGRES_SEEDS (the PostgreSQL host) is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD (read by temporal-sql-tool) is required}"
port="${DB_PORT:-5432}"
schemas="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"

# Without nc (a machine rather than the image), the SQL tool's own connection error says it.
if command -v nc >/dev/null 2>&1; then
  until nc -z "$POSTGRES_SEEDS" "$port"; do
    echo "Waiting for PostgreSQL at $POSTGRES_SEEDS:$port ..."
    sleep 1
  done
fi

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$port" -u "$POSTGRES_USER" "$@"
}

# database name : schema folder
for pair in temporal:temporal temporal_visibility:visibility; do
  database="${pair%%:*}"
  folder="${pair#*:}"
  echo "Schema of $database ..."
  sql_tool --db "$database" create
  sql_tool --db "$database" setup-schema -v 0.0
  sql_tool --db "$database" update-schema -d "$schemas/$folder/versioned"
done
echo 'PostgreSQL schemas are up to date.'
