#!/usr/bin/env bash
# One command for the benchmarks: provisions the machine, starts the stack (unless
# BENCH_USE_RUNNING=1), generates the data, runs every scenario and writes
# bench/results/<date>.md and .json. Progress goes to stderr. See bench/README.md.
#
#   bench/run.sh              # full: 100k gamers / 1M relations (+ 10k and 1M growth points)
#   bench/run.sh --quick      # smaller data and shorter runs, for iteration
#   BENCH_USE_RUNNING=1 bench/run.sh --quick    # use a stack already started by scripts/stack.sh
#
# Other switches: --skip-profile, --skip-tasks (or BENCH_SKIP_PROFILE=1 / BENCH_SKIP_TASKS=1).
# --suggestions runs only the friend-suggestion scenario (bench/src/suggestions.ts).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=../scripts/provision.sh
. scripts/provision.sh
gfts_provision

export JWT_SECRET="${JWT_SECRET:-dev-only-secret-change-me-0123456789abcdef}"
export INTERNAL_TOKEN_SECRET="${INTERNAL_TOKEN_SECRET:-dev-only-internal-secret-0123456789abcdef}"
state="$root/.stack/state.json"
stack_pid=""

stop_stack() {
  if [ -n "$stack_pid" ] && kill -0 "$stack_pid" 2>/dev/null; then
    echo "==> bench: stopping the stack it started" >&2
    kill -TERM "$stack_pid" 2>/dev/null || true
    wait "$stack_pid" 2>/dev/null || true
  fi
}
trap stop_stack EXIT INT TERM

if [ "${BENCH_USE_RUNNING:-0}" = 1 ]; then
  [ -f "$state" ] || { echo "BENCH_USE_RUNNING=1 but $state is missing: start scripts/stack.sh first" >&2; exit 1; }
else
  if [ -f "$state" ]; then
    echo "a stack is already running ($state); stop it, or run with BENCH_USE_RUNNING=1" >&2
    exit 1
  fi
  # The gateway's per-gamer rate limit (600/min) would turn a load test of a few gamers into
  # a test of the limiter: raise it. Everything else runs with the stack's defaults.
  export RATE_LIMIT_MAX="${RATE_LIMIT_MAX:-10000000}"
  # On FerretDB/SQLite a friend list over 1M relations takes far longer than the gateway's
  # 10 s upstream timeout: raise it so the bench measures the latency instead of 504s.
  export UPSTREAM_TIMEOUT_MS="${UPSTREAM_TIMEOUT_MS:-900000}"
  # own container names, so a developer's scripts/stack.sh containers are never replaced
  export STACK_NAME="${STACK_NAME:-gfts-bench}"
  mkdir -p "$root/.stack"
  echo "==> bench: starting the stack (log: .stack/bench-stack.log)" >&2
  scripts/stack.sh >"$root/.stack/bench-stack.log" 2>&1 &
  stack_pid=$!
  for _ in $(seq 1 600); do
    if [ -f "$state" ] && curl -fsS "$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).services.gateway.url' "$state")/readyz" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$stack_pid" 2>/dev/null; then echo "the stack failed to start:" >&2; tail -n 30 "$root/.stack/bench-stack.log" >&2; exit 1; fi
    sleep 0.5
  done
  [ -f "$state" ] || { echo "the stack did not come up in 5 minutes" >&2; exit 1; }
fi

echo "==> bench: load average $(cut -d' ' -f1-3 /proc/loadavg) before the run" >&2
if [[ " $* " == *" --suggestions "* ]]; then
  args=()
  for a in "$@"; do [ "$a" = --suggestions ] || args+=("$a"); done
  node "$root/bench/src/suggestions.ts" "${args[@]}"
else
  node "$root/bench/src/main.ts" "$@"
fi
