# Sourced by .ci/run: starts the release build of the service on a free port
# with a temporary SQLite file, waits until /readyz answers, exports
# BASE_URL, and stops the service and removes the file on exit.

service_dir=$(mktemp -d)
service_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export BASE_URL="http://127.0.0.1:${service_port}"
# Operators' paths on, and webhooks to this machine allowed (the receivers
# of scripts/webhook-check and the client's test are on 127.0.0.1).
export ADMIN_KEY="ci-admin-$$"

# Secrets by the environment (a flag shows in `ps`). Every suite runs from
# this one address, so players are not limited per client here.
TABULA_ADMIN_KEY="$ADMIN_KEY" TABULA_PLAYER_RATE=0 target/release/tabula \
    --addr "127.0.0.1:${service_port}" \
    --database-url "sqlite://${service_dir}/tabula.db" \
    --log warn \
    --bot-budget-ms 50 \
    --webhook-allow-private \
    >"${service_dir}/service.log" 2>&1 &
service_pid=$!

stop_service() {
    if kill -0 "$service_pid" 2>/dev/null; then
        kill -TERM "$service_pid"
        wait "$service_pid" || true
    fi
    rm -rf "$service_dir"
}
# .ci/run calls stop_service from its own EXIT trap.

for _ in $(seq 1 100); do
    if curl -fsS "${BASE_URL}/readyz" >/dev/null 2>&1; then
        break
    fi
    if ! kill -0 "$service_pid" 2>/dev/null; then
        echo "the service exited:" >&2
        cat "${service_dir}/service.log" >&2
        exit 1
    fi
    sleep 0.1
done
curl -fsS "${BASE_URL}/readyz" >/dev/null
echo "service ready at ${BASE_URL} (pid ${service_pid})"
