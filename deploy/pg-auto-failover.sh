#!/bin/sh
# The compose profile `ha`: `pg-auto-failover.sh monitor` runs the
# pg_auto_failover monitor; `pg-auto-failover.sh node` runs a database node
# that registers with the monitor (the first becomes the primary, the next
# its synchronous standby) and serves the database `tabula`. The data stays in
# $PGDATA (a volume): a restarted container takes its node up again.
# Without TLS (--no-ssl): the containers talk over the stack's own network
# only, as the `scale` stack's PostgreSQL does.
#
# Failover is quicker than pg_auto_failover's defaults (which take ~50 s) and
# keeps their safety order: a primary cut off from the monitor stops itself
# after network_partition_timeout (5 s), before the monitor promotes the
# standby after primary_demote_timeout (8 s), so two primaries never accept
# writes at once.
set -e
role=${1:?monitor or node}
host=$(hostname)
if [ ! -f "$PGDATA/PG_VERSION" ]; then
  case $role in
    monitor)
      pg_autoctl create monitor --pgdata "$PGDATA" --pgport 5432 --hostname "$host" \
        --auth trust --no-ssl
      cat >>"$PGDATA/postgresql.auto.conf" <<CONF
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_retry_delay = 500
pgautofailover.health_check_max_retries = 1
pgautofailover.node_considered_unhealthy_timeout = 3000
pgautofailover.primary_demote_timeout = 8000
CONF
      ;;
    node)
      pg_autoctl create postgres --pgdata "$PGDATA" --pgport 5432 --hostname "$host" \
        --name "$host" --dbname tabula --auth trust --no-ssl --pg-hba-lan \
        --monitor "postgres://autoctl_node@${MONITOR:-pg-monitor}:5432/pg_auto_failover?sslmode=disable"
      pg_autoctl config set --pgdata "$PGDATA" timeout.network_partition_timeout 5
      ;;
  esac
fi
exec pg_autoctl run --pgdata "$PGDATA"
