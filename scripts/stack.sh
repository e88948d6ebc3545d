#!/usr/bin/env bash
# Brings the whole stack up on this machine: a MongoDB-compatible database per service,
# NATS with JetStream, and the gateway, friendship, tasks and notifications services; builds the
# admin console the gateway serves at /console. Installs what is missing first
# (scripts/provision.sh). Ctrl-C stops everything it started. It prints the console's URL
# and an admin token (12 hours) to sign in with.
#
#   scripts/stack.sh            # gateway on http://localhost:8080, console on /console
#   GATEWAY_PORT=9090 scripts/stack.sh
#   GATEWAY_HOST=0.0.0.0 scripts/stack.sh
#                               # the gateway reachable from other machines too (a phone on the
#                               # LAN); by default (127.0.0.1) only from this one, since the stack's JWT
#                               # secret is the published development one: anyone who reaches
#                               # the gateway can mint an admin token for it
#   FRIENDSHIP_DB_STATE=/path/dir scripts/stack.sh
#                               # the friendship database keeps its files in that host directory
#                               # (a dataset loaded once, reused by several runs: bench/README.md)
#   STACK_NAME=second GATEWAY_PORT=9080 FRIENDSHIP_PORT=9081 TASKS_PORT=9082 \
#     NOTIFICATIONS_PORT=9083 scripts/stack.sh
#                               # a second stack beside a running one: its own containers, ports,
#                               # state file and logs (bench/run.sh runs STACK_NAME=gfts-bench)
#
# Settings (environment variables; no arguments):
#   GATEWAY_PORT         the gateway's port (8080); FRIENDSHIP_PORT (8081), TASKS_PORT (8082),
#                        NOTIFICATIONS_PORT (8083) the services' on 127.0.0.1
#   GATEWAY_HOST         127.0.0.1 (default) or 0.0.0.0
#   STACK_NAME           prefix of the containers' names (gfts-stack): <name>-friendship-db,
#                        -tasks-db, -notifications-db, -nats. A stack whose containers of this
#                        name are running is refused, never replaced: a second stack needs a
#                        name of its own, and ports of its own
#   STATE_FILE           where the running stack is described (pids, URLs, containers; read by
#                        bench/): .stack/state.json, or .stack/<STACK_NAME>/state.json for
#                        another STACK_NAME
#   LOG_DIR              the services' logs and the console build's: .stack/logs, or
#                        .stack/<STACK_NAME>/logs for another STACK_NAME
#   CONSOLE_APP          the application id of the printed admin token
#                        (00000000-0000-4000-8000-000000000001)
#   FRIENDSHIP_DB_STATE  above
#   JWT_SECRET, INTERNAL_TOKEN_SECRET   the development secrets unless set
#   MONGO_IMAGE, NATS_IMAGE             the stores' images (scripts/provision.sh --help)
# The services inherit the rest of the environment (e.g. CORS_ORIGINS, RATE_LIMIT_MAX).
# Every stack of this checkout builds the console into the same apps/console/dist.
# --help prints this header.
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;; esac
# Settings are environment variables: an argument (--port 9090) would otherwise be ignored.
if [ "$#" -gt 0 ]; then
  echo "scripts/stack.sh takes no arguments, got: $*; settings are environment variables (GATEWAY_PORT=9090 scripts/stack.sh); scripts/stack.sh --help" >&2
  exit 2
fi
GATEWAY_HOST="${GATEWAY_HOST:-127.0.0.1}"
case "$GATEWAY_HOST" in
  127.0.0.1 | 0.0.0.0) ;;
  *) echo "GATEWAY_HOST must be 127.0.0.1 (this machine) or 0.0.0.0 (every interface), not '$GATEWAY_HOST'" >&2; exit 2 ;;
esac
STACK_NAME="${STACK_NAME:-gfts-stack}"
# It names containers and a directory under .stack/.
if ! [[ $STACK_NAME =~ ^[a-zA-Z0-9][a-zA-Z0-9_.-]*$ ]]; then
  echo "STACK_NAME must be letters, digits, '_', '.' or '-' (a container name prefix), not '$STACK_NAME'" >&2
  exit 2
fi
set -euo pipefail
# start_container's per-call setting (below): not one exported in the caller's shell
unset DB_STATE
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
say() { printf '==> %s\n' "$*" >&2; }
pids=()
# the service each entry of pids runs
services=()
containers=()

# The state file this run wrote: only that one is removed (a refused start leaves the
# running stack's alone).
state_written=""

cleanup() {
  trap - INT TERM EXIT
  say "stopping the stack"
  for pid in ${pids[@]+"${pids[@]}"}; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
  # -v: the official mongo image declares volumes, which docker keeps after a plain rm -f (six a run)
  if [ "${#containers[@]}" -gt 0 ]; then "$engine" rm -fv "${containers[@]}" >/dev/null 2>&1 || true; fi
  if [ -n "$state_written" ]; then rm -f "$state_written"; fi
  say "stopped"
}
# Set before provisioning, so that a Ctrl-C during a first run's downloads or image builds
# ends cleanly too (the Podman API service provisioning may start stays: other runs use it).
# bash resumes the script after a signal's trap, so the signal traps exit themselves.
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# its readiness wait asks the gateway with curl: without it, it would wait its 60 s and blame the stack
command -v curl >/dev/null 2>&1 || { echo "stack: curl is needed (the readiness wait and the printed examples use it); install it, e.g. apt-get install curl" >&2; exit 1; }

# shellcheck source=provision.sh
. scripts/provision.sh
gfts_provision

export JWT_SECRET="${JWT_SECRET:-dev-only-secret-change-me-0123456789abcdef}"
# a secret of the caller's own must reach the printed commands too: in another shell they sign with the development one
secret_env=""
if [ "$JWT_SECRET" != "dev-only-secret-change-me-0123456789abcdef" ]; then secret_env="JWT_SECRET=$(printf '%q' "$JWT_SECRET") "; fi
export INTERNAL_TOKEN_SECRET="${INTERNAL_TOKEN_SECRET:-dev-only-internal-secret-0123456789abcdef}"
GATEWAY_PORT="${GATEWAY_PORT:-8080}"
FRIENDSHIP_PORT="${FRIENDSHIP_PORT:-8081}"
TASKS_PORT="${TASKS_PORT:-8082}"
NOTIFICATIONS_PORT="${NOTIFICATIONS_PORT:-8083}"
# The default stack keeps the files it always had; another STACK_NAME gets its own, so that
# two stacks never write the same logs or remove each other's state file.
if [ "$STACK_NAME" = gfts-stack ]; then stack_dir="$root/.stack"; else stack_dir="$root/.stack/$STACK_NAME"; fi
LOG_DIR="${LOG_DIR:-$stack_dir/logs}"
# Where everything runs, for tools such as bench/ that measure the running stack.
STATE_FILE="${STATE_FILE:-$stack_dir/state.json}"
engine="$GFTS_ENGINE"
stack_containers=("$STACK_NAME-friendship-db" "$STACK_NAME-tasks-db" "$STACK_NAME-notifications-db" "$STACK_NAME-nats")

# start_container removes a container of the same name first (a stopped one left by a
# killed run): while one of them runs it belongs to a stack that is up, whose databases
# and NATS that would destroy. Checked before anything is removed or written.
running="$("$engine" ps --format '{{.Names}}')" || { echo "cannot list $engine's containers" >&2; exit 1; }
busy=()
for name in "${stack_containers[@]}"; do
  if grep -qFx -- "$name" <<<"$running"; then busy+=("$name"); fi
done
if [ "${#busy[@]}" -gt 0 ]; then
  cat >&2 <<MSG
a stack named $STACK_NAME is already running ($engine containers: ${busy[*]}).
Stop it (Ctrl-C in its terminal), or run a second stack with a name and ports of its own:
  STACK_NAME=gfts-stack2 GATEWAY_PORT=9080 FRIENDSHIP_PORT=9081 TASKS_PORT=9082 NOTIFICATIONS_PORT=9083 scripts/stack.sh
If no stack of that name runs any more (its script was killed), remove them: $engine rm -fv ${busy[*]}
MSG
  exit 1
fi

for port in "$GATEWAY_PORT" "$FRIENDSHIP_PORT" "$TASKS_PORT" "$NOTIFICATIONS_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is already in use (another stack running?); a second stack needs its own STACK_NAME and ports: set STACK_NAME and GATEWAY_PORT/FRIENDSHIP_PORT/TASKS_PORT/NOTIFICATIONS_PORT (scripts/stack.sh --help)" >&2
    exit 1
  fi
done
mkdir -p "$LOG_DIR"

# Starts a container on a random loopback port and prints that port. It runs in a
# command substitution (a subshell), so the caller registers the name for cleanup.
start_container() {
  local name="$1" image="$2" port="$3" mount=()
  shift 3
  # DB_STATE: a host directory for the database's files (the local FerretDB keeps them in /state)
  if [ -n "${DB_STATE:-}" ]; then
    # Docker makes a missing directory; Podman refuses it, and takes a relative path (here:
    # relative to the checkout) for a volume name
    [ -d "$DB_STATE" ] || { say "creating $DB_STATE (empty: the database starts with no data)"; mkdir -p "$DB_STATE"; }
    DB_STATE="$(CDPATH='' cd -- "$DB_STATE" >/dev/null && pwd -P)"
    case "$image" in localhost/gfts/ferretdb:*) mount=(-v "$DB_STATE:/state") ;; *) mount=(-v "$DB_STATE:/data/db") ;; esac
  fi
  "$engine" rm -fv "$name" >/dev/null 2>&1 || true
  "$engine" run -d --name "$name" -p "127.0.0.1::$port" ${mount[@]+"${mount[@]}"} "$image" "$@" >/dev/null
  "$engine" port "$name" "$port/tcp" | head -n 1 | sed 's/.*://'
}

wait_for_log() {
  local name="$1" pattern="$2" i
  for i in $(seq 1 120); do
    # grep reads the whole log: with -q it may exit first, and pipefail took the engine's
    # SIGPIPE for a miss, so a database that kept logging could read as "did not start"
    "$engine" logs "$name" 2>&1 | grep -E "$pattern" >/dev/null && return 0
    sleep 0.5
  done
  echo "$name did not start; its log:" >&2
  "$engine" logs "$name" >&2 || true
  return 1
}

say "building the admin console (apps/console, Vite)"
pnpm -s build >"$LOG_DIR/console-build.log" 2>&1 || { echo "the console did not build; see $LOG_DIR/console-build.log" >&2; exit 1; }

containers=("${stack_containers[@]}")
say "starting databases ($MONGO_IMAGE) and NATS ($NATS_IMAGE) with $engine"
friendship_db_port="$(DB_STATE="${FRIENDSHIP_DB_STATE:-}" start_container "$STACK_NAME-friendship-db" "$MONGO_IMAGE" 27017)"
tasks_db_port="$(start_container "$STACK_NAME-tasks-db" "$MONGO_IMAGE" 27017)"
notifications_db_port="$(start_container "$STACK_NAME-notifications-db" "$MONGO_IMAGE" 27017)"
nats_port="$(start_container "$STACK_NAME-nats" "$NATS_IMAGE" 4222 -js -sd /data)"
wait_for_log "$STACK_NAME-friendship-db" 'Waiting for connections|Listening on'
wait_for_log "$STACK_NAME-tasks-db" 'Waiting for connections|Listening on'
wait_for_log "$STACK_NAME-notifications-db" 'Waiting for connections|Listening on'
wait_for_log "$STACK_NAME-nats" 'Server is ready'

run_service() {
  local name="$1"
  shift
  say "starting $name (log: $LOG_DIR/$name.log)"
  # the images' start command: tracing on when OTEL_EXPORTER_OTLP_ENDPOINT is set
  env "$@" node --import ./libs/platform/src/tracing/register.ts "services/$name/src/server.ts" >"$LOG_DIR/$name.log" 2>&1 &
  pids+=("$!")
  services+=("$name")
}

# The first service that is no longer running, as "<index>", or nothing.
exited_service() {
  local i
  for i in "${!pids[@]}"; do
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then echo "$i"; return; fi
  done
}

# Names the service that stopped and how (a pod limit's kill shows as SIGKILL), with the
# last lines of its log; the other services' logs stay in $LOG_DIR.
report_exited() {
  local i="$1" when="$2" status=0 how
  wait "${pids[$i]}" 2>/dev/null || status=$?
  case "$status" in
    137) how="killed by SIGKILL: out of memory?" ;;
    134) how="aborted: out of heap?" ;;
    *) how="exit status $status" ;;
  esac
  echo "the ${services[$i]} service exited $when ($how); last lines of $LOG_DIR/${services[$i]}.log:" >&2
  tail -n 30 "$LOG_DIR/${services[$i]}.log" >&2
  # JetStream reserves each stream's max bytes on disk when it is made: with less free space
  # than the streams ask (about 3 GiB together, docs/operations.md "Sizing the streams") it
  # refuses them, and its error does not say the disk is the cause
  if grep -Eq 'insufficient (storage )?resources' "$LOG_DIR/${services[$i]}.log"; then
    echo "NATS refused a stream for want of disk: free some space where $engine keeps its containers' data (df -h), or lower STATS_STREAM_MAX_BYTES (2 GiB), PRESENCE_ANNOUNCED_BUCKET_MAX_BYTES (512 MiB), STATS_DEAD_LETTER_STREAM_MAX_BYTES and GAMERS_STREAM_MAX_BYTES (256 MiB each) for this stack" >&2
  fi
}

run_service friendship PORT="$FRIENDSHIP_PORT" HOST=127.0.0.1 \
  MONGO_URL="mongodb://127.0.0.1:$friendship_db_port/friendship" NATS_URL="nats://127.0.0.1:$nats_port"
run_service tasks PORT="$TASKS_PORT" HOST=127.0.0.1 \
  MONGO_URL="mongodb://127.0.0.1:$tasks_db_port/tasks" NATS_URL="nats://127.0.0.1:$nats_port"
run_service notifications PORT="$NOTIFICATIONS_PORT" HOST=127.0.0.1 \
  MONGO_URL="mongodb://127.0.0.1:$notifications_db_port/notifications" NATS_URL="nats://127.0.0.1:$nats_port"
run_service gateway PORT="$GATEWAY_PORT" HOST="$GATEWAY_HOST" \
  FRIENDSHIP_URL="http://127.0.0.1:$FRIENDSHIP_PORT" TASKS_URL="http://127.0.0.1:$TASKS_PORT" \
  NOTIFICATIONS_URL="http://127.0.0.1:$NOTIFICATIONS_PORT" \
  NATS_URL="nats://127.0.0.1:$nats_port"

write_state() {
  mkdir -p "$(dirname "$STATE_FILE")"
  cat >"$STATE_FILE.tmp" <<JSON
{
  "startedAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "engine": "$engine",
  "mongoImage": "$MONGO_IMAGE",
  "natsImage": "$NATS_IMAGE",
  "natsUrl": "nats://127.0.0.1:$nats_port",
  "services": {
    "friendship": { "pid": ${pids[0]}, "url": "http://127.0.0.1:$FRIENDSHIP_PORT", "mongoUrl": "mongodb://127.0.0.1:$friendship_db_port/friendship" },
    "tasks": { "pid": ${pids[1]}, "url": "http://127.0.0.1:$TASKS_PORT", "mongoUrl": "mongodb://127.0.0.1:$tasks_db_port/tasks" },
    "notifications": { "pid": ${pids[2]}, "url": "http://127.0.0.1:$NOTIFICATIONS_PORT", "mongoUrl": "mongodb://127.0.0.1:$notifications_db_port/notifications" },
    "gateway": { "pid": ${pids[3]}, "url": "http://127.0.0.1:$GATEWAY_PORT" }
  },
  "containers": { "friendshipDb": "$STACK_NAME-friendship-db", "tasksDb": "$STACK_NAME-tasks-db", "notificationsDb": "$STACK_NAME-notifications-db", "nats": "$STACK_NAME-nats" },
  "stackPid": $$
}
JSON
  mv "$STATE_FILE.tmp" "$STATE_FILE"
  state_written="$STATE_FILE"
}
write_state

gateway="http://localhost:$GATEWAY_PORT"
for i in $(seq 1 120); do
  if curl -fsS "$gateway/readyz" >/dev/null 2>&1; then break; fi
  exited=$(exited_service)
  if [ -n "$exited" ]; then
    report_exited "$exited" "during start"
    exit 1
  fi
  [ "$i" = 120 ] && { echo "the stack did not become ready in 60 s; logs in $LOG_DIR" >&2; exit 1; }
  sleep 0.5
done

console_app="${CONSOLE_APP:-00000000-0000-4000-8000-000000000001}"
admin_token="$(node scripts/mint-token.mjs --app "$console_app" --name 'Console admin' --roles admin --ttl 43200)"

cat <<INFO

  The stack is up.
    gateway          $gateway   (/healthz, /readyz, /metrics)
    console          $gateway/console   (sign in with the admin token below; application $console_app)
    admin token      $admin_token
    friendship       http://127.0.0.1:$FRIENDSHIP_PORT (internal: needs the gateway's identity)
    tasks            http://127.0.0.1:$TASKS_PORT (internal)
    notifications    http://127.0.0.1:$NOTIFICATIONS_PORT (internal; clients use ws://localhost:$GATEWAY_PORT/api/v1/notifications/live)
    NATS             nats://127.0.0.1:$nats_port
    logs             $LOG_DIR
    state            $STATE_FILE   (containers $STACK_NAME-*)
    dev JWT secret   $JWT_SECRET   (HS256; claims sub=gamerId, app=applicationId, name, picture, roles)

  Call it (from $root):
    ${secret_env}TOKEN=\$(${secret_env}$(printf '%q' "$(command -v node)") scripts/mint-token.mjs --name Ann)
    curl -s -H "Authorization: Bearer \$TOKEN" "$gateway/api/v1/friendship/search?displayName=a"
    ${secret_env}scripts/demo.sh $gateway     # a tour: catalog, assign, stats, completion, claim, inventory, friends

  Press Ctrl-C to stop everything.
INFO

# Runs until Ctrl-C or until a service dies.
while :; do
  exited=$(exited_service)
  if [ -n "$exited" ]; then
    report_exited "$exited" "while running"
    exit 1
  fi
  sleep 1
done
