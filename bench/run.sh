#!/usr/bin/env bash
# One command for the benchmarks: provisions the machine, starts the stack (unless
# BENCH_USE_RUNNING=1), generates the data, runs every scenario and writes
# bench/results/<date>.md and .json. Progress goes to stderr. See bench/README.md.
#
#   bench/run.sh              # full: 100k gamers / 1M relations (+ 10k and 1M growth points)
#   bench/run.sh --quick      # smaller data and shorter runs, for iteration
#   BENCH_USE_RUNNING=1 bench/run.sh --quick    # use a stack already started by scripts/stack.sh
#
#   bench/run.sh --tasks-only [--label before]  # only the tasks pipeline (issue #10 item 6), ~6–8 min
#
#   BENCH_STACK_ROOT=/path/to/other/checkout bench/run.sh --tasks-only --label before
#                             # this bench against the stack of another checkout (older code)
#
# Other switches: --skip-profile, --skip-tasks (or BENCH_SKIP_PROFILE=1 / BENCH_SKIP_TASKS=1).
# --suggestions runs only the friend-suggestion scenario (bench/src/suggestions.ts).
# --peer runs only the peer-shaped scenario of issue #16 (bench/src/peer.ts).
# --notifications runs only the notifications bench (issue #12 item 6: 10k sockets, fan-out, storm).
# --help lists them all.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# images named by the caller are kept; those provisioning picks follow this checkout's recipes
user_mongo_image="${MONGO_IMAGE:-}" user_nats_image="${NATS_IMAGE:-}"
# shellcheck source=../scripts/provision.sh
. scripts/provision.sh
case " $* " in
  # --help needs Node and the packages (the bench's own --help texts), not images or engines
  *" --help "* | *" -h "*) mkdir -p "$GFTS_CACHE" && _gfts_node && _gfts_pnpm && _gfts_packages ;;
  *) gfts_provision ;;
esac

entry="$root/bench/src/main.ts"
for a in "$@"; do
  case "$a" in
    --tasks-only) entry="$root/bench/src/tasks-only.ts" ;;
    --suggestions) entry="$root/bench/src/suggestions.ts" ;;
    --peer) entry="$root/bench/src/peer.ts" ;;
    --notifications) entry="$root/bench/src/notifications.ts" ;;
  esac
done
for a in "$@"; do
  case "$a" in
    --help | -h)
      cat <<'HELP'
bench/run.sh [options]: provisions the machine, starts its own stack (scripts/stack.sh with
STACK_NAME=gfts-bench on ports 18080-18083, unless BENCH_USE_RUNNING=1), runs the bench,
writes bench/results/, stops the stack. See bench/README.md.

  (no option)          full run: friendship data and scenarios, profile, tasks (~22 min)
  --quick              smaller data and shorter runs
  --skip-profile       no CPU profile phase            (BENCH_SKIP_PROFILE=1)
  --skip-tasks         no tasks scenarios              (BENCH_SKIP_TASKS=1)
  --profile-only LABEL only the gateway-cost scenarios and the profile -> profile-LABEL.json
  BENCH_ONLY_TASKS=1   only the full run's tasks scenarios (ingest, ack-only, claims)
  --suggestions        only the friend-suggestion scenario (bench/src/suggestions.ts)
  --peer               only the peer-shaped scenario of issue #16 (bench/src/peer.ts, ~3 min):
                       friend list of 20 gamers x 100 friends (8 connections, 20 s), 500
                       add-friend pairs at concurrency 4, GET /blocked via gateway vs direct;
                       CPU ms per request of every process; --label NAME, --before FILE.json
  --notifications      only the notifications bench (issue #12 item 6): 10k WebSockets on one
                       replica (RSS per idle socket, CPU at idle), event->socket latency at
                       offered rates, a reconnect storm with resume; ~6 min. Raises ulimit -n.
  --tasks-only         only the tasks pipeline (issue #10 item 6): sustained events/s, open-loop
                       rates with event->completion latency, the store's bulk-update ceiling;
                       its own options follow the environment variables.

  BENCH_CPU_PROF=1     the stack's node processes run under --cpu-prof (.stack/cpuprof); then
                       node bench/src/peer-profile.ts <peer json> .stack/cpuprof summarises them
                       (gateway and friendship: a table and a flame graph .svg per phase);
                       for other runs node bench/src/flamegraph-cli.ts .stack/cpuprof <prefix>
  BENCH_USE_RUNNING=1  use the stack of .stack/state.json (started with scripts/stack.sh);
                       otherwise the bench's own stack is described in .stack/gfts-bench/
  BENCH_STACK_ROOT=DIR start the stack from another checkout's scripts/stack.sh (e.g. a git
                       worktree of older code, for a before/after): its services and images,
                       this checkout's bench; results name that checkout's commit (MONGO_IMAGE/
                       NATS_IMAGE set in the environment are used as they are: unset them)

HELP
      if [ "$entry" = "$root/bench/src/notifications.ts" ]; then
        node "$entry" --help | sed -n '/^  --quick/,$p'
      else
        node "$root/bench/src/tasks-only.ts" --help | sed -n '/^  --quick/,$p'
      fi
      echo
      echo "--peer options:"
      node "$root/bench/src/peer.ts" --help | sed -n '/^  --/,$p'
      exit 0
      ;;
  esac
done
# a mistyped option fails now, not after the stack has started (every entry checks its options)
BENCH_ARGS_ONLY=1 node "$entry" "$@" || exit $?
if [ "$entry" = "$root/bench/src/notifications.ts" ]; then
  # 10k sockets: the load client holds one descriptor per socket, the service one, and the
  # gateway two per piped socket; everything started from here inherits the raised limit.
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  echo "==> bench: open-file limit $(ulimit -n) (hard $(ulimit -Hn))" >&2
fi

export JWT_SECRET="${JWT_SECRET:-dev-only-secret-change-me-0123456789abcdef}"
export INTERNAL_TOKEN_SECRET="${INTERNAL_TOKEN_SECRET:-dev-only-internal-secret-0123456789abcdef}"
state="$root/.stack/state.json"
# the checkout whose services run (default: this one); the bench is always this checkout's
stack_root="$(cd "${BENCH_STACK_ROOT:-$root}" && pwd)"
[ -x "$stack_root/scripts/stack.sh" ] || { echo "BENCH_STACK_ROOT=$stack_root has no scripts/stack.sh" >&2; exit 1; }
export BENCH_STACK_ROOT="$stack_root"
if [ "$stack_root" != "$root" ]; then
  # that checkout's stack.sh provisions the images of its own recipes (its store patches)
  [ -n "$user_mongo_image" ] || unset MONGO_IMAGE
  [ -n "$user_nats_image" ] || unset NATS_IMAGE
fi
stack_pid=""

bench_pid=""
# Once only: a second TERM would cut scripts/stack.sh's own cleanup short and leave its
# containers. The bench runs in the background so that a signal reaches this trap at once.
stop_stack() {
  trap - EXIT INT TERM
  if [ -n "$bench_pid" ] && kill -0 "$bench_pid" 2>/dev/null; then
    kill -TERM "$bench_pid" 2>/dev/null || true
    wait "$bench_pid" 2>/dev/null || true
  fi
  if [ -n "$stack_pid" ] && kill -0 "$stack_pid" 2>/dev/null; then
    echo "==> bench: stopping the stack it started" >&2
    kill -TERM "$stack_pid" 2>/dev/null || true
    wait "$stack_pid" 2>/dev/null || true
  fi
}
trap stop_stack EXIT
trap 'stop_stack; exit 130' INT
trap 'stop_stack; exit 143' TERM

if [ "${BENCH_USE_RUNNING:-0}" = 1 ]; then
  [ -f "$state" ] || { echo "BENCH_USE_RUNNING=1 but $state is missing: start scripts/stack.sh first" >&2; exit 1; }
else
  # The gateway's per-gamer rate limit (600/min) would turn a load test of a few gamers into
  # a test of the limiter: raise it. Everything else runs with the stack's defaults.
  export RATE_LIMIT_MAX="${RATE_LIMIT_MAX:-10000000}"
  export RATE_LIMIT_SERVER_MAX="${RATE_LIMIT_SERVER_MAX:-10000000}"
  # On FerretDB/SQLite a friend list over 1M relations takes far longer than the gateway's
  # 10 s upstream timeout: raise it so the bench measures the latency instead of 504s.
  export UPSTREAM_TIMEOUT_MS="${UPSTREAM_TIMEOUT_MS:-900000}"
  # own container names and ports, so a developer's scripts/stack.sh is never replaced or blocked
  export STACK_NAME="${STACK_NAME:-gfts-bench}"
  export GATEWAY_PORT="${GATEWAY_PORT:-18080}" FRIENDSHIP_PORT="${FRIENDSHIP_PORT:-18081}" TASKS_PORT="${TASKS_PORT:-18082}" NOTIFICATIONS_PORT="${NOTIFICATIONS_PORT:-18083}"
  # and its own state file and logs, beside a developer's .stack/state.json (stack.sh's layout
  # for a named stack). One left by a killed run is replaced: stack.sh itself refuses to start
  # while containers of this name still run.
  state="$root/.stack/$STACK_NAME/state.json"
  rm -f "$state"
  mkdir -p "$root/.stack/$STACK_NAME"
  echo "==> bench: starting the stack of $stack_root (log: .stack/bench-stack.log)" >&2
  # BENCH_CPU_PROF=1: the stack's node processes run under --cpu-prof and write their
  # profiles to .stack/cpuprof when they stop (bench/src/peer-profile.ts summarises them)
  prof_env=()
  if [ "${BENCH_CPU_PROF:-0}" = 1 ]; then
    rm -rf "$root/.stack/cpuprof" && mkdir -p "$root/.stack/cpuprof"
    prof_env=(NODE_OPTIONS="${NODE_OPTIONS:-} --cpu-prof --cpu-prof-dir=$root/.stack/cpuprof")
    echo "==> bench: CPU profiles of the stack go to .stack/cpuprof (figures of this run include the profiler's cost)" >&2
  fi
  # its state file and service logs stay in this checkout's .stack/
  env "${prof_env[@]}" STATE_FILE="$state" LOG_DIR="$root/.stack/$STACK_NAME/logs" "$stack_root/scripts/stack.sh" >"$root/.stack/bench-stack.log" 2>&1 &
  stack_pid=$!
  for _ in $(seq 1 600); do
    if [ -f "$state" ] && curl -fsS "$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).services.gateway.url' "$state")/readyz" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$stack_pid" 2>/dev/null; then echo "the stack failed to start:" >&2; tail -n 30 "$root/.stack/bench-stack.log" >&2; exit 1; fi
    sleep 0.5
  done
  [ -f "$state" ] || { echo "the stack did not come up in 5 minutes" >&2; exit 1; }
fi

echo "==> bench: load average $(cut -d' ' -f1-3 /proc/loadavg) before the run" >&2
args=()
has_state=0
for a in "$@"; do
  [ "$a" = --state ] && has_state=1
  [ "$a" = --suggestions ] || [ "$a" = --peer ] || args+=("$a")
done
# the stack this run measures, unless the command line names one
[ "$has_state" = 1 ] || args+=(--state "$state")
node "$entry" "${args[@]}" &
bench_pid=$!
rc=0
wait "$bench_pid" || rc=$?
bench_pid=""
# a bench that failed because a service of its stack died says which (scripts/stack.sh names it)
if [ "$rc" -ne 0 ] && [ -n "$stack_pid" ]; then
  # the stack looks at its services once a second: give it time to notice and report
  for _ in 1 2 3 4 5 6; do kill -0 "$stack_pid" 2>/dev/null || break; sleep 0.5; done
  if grep -q "service exited" "$root/.stack/bench-stack.log" 2>/dev/null; then
    echo "==> bench: a service of the stack died during the run (.stack/bench-stack.log):" >&2
    grep -A 31 "service exited" "$root/.stack/bench-stack.log" >&2
  fi
fi
exit "$rc"
