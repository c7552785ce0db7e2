#!/bin/sh
# The real image's contract, in short: initialise an empty data directory
# with POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, listen on every
# address with password authentication, then run postgres as its user.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
mkdir -p "$PGDATA" && chown -R postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw=$(mktemp) && printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$pw" && chown postgres "$pw"
  su postgres -c "initdb -D '$PGDATA' -U '$POSTGRES_USER' --pwfile='$pw' --auth-local=trust --auth-host=scram-sha-256" >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.auto.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    su postgres -c "postgres -D '$PGDATA' -c listen_addresses='' -k /var/run/postgresql" &
    until su postgres -c "pg_isready -q -h /var/run/postgresql -U '$POSTGRES_USER' -d postgres"; do sleep 0.2; done
    su postgres -c "psql -q -h /var/run/postgresql -U '$POSTGRES_USER' -d postgres -c 'CREATE DATABASE \"$POSTGRES_DB\"'"
    su postgres -c "pg_ctl -D '$PGDATA' -m fast -w stop" >/dev/null
  fi
fi
[ "$1" = postgres ] && shift && exec su postgres -c "exec postgres -D '$PGDATA' -k /var/run/postgresql $*"
exec "$@"
