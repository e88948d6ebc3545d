#!/usr/bin/env bash
# Runs every check and test: typecheck, lint, the deployment manifests' validation, unit
# tests, and integration tests against real MongoDB-compatible and NATS servers (started by
# testcontainers). Installs what is missing first (scripts/provision.sh).
#
#   scripts/test.sh                 # everything
#   scripts/test.sh services/tasks  # only tests under a path (checks still run)
# Results: test-results/vitest.json (machine-readable) and the console.
# Ctrl-C removes the run's test containers (labelled gfts.test-run; vitest's own teardown does
# not run on an interrupt, and where testcontainers' reaper is off nothing else would);
# GFTS_KEEP_CONTAINERS=1 keeps them.
# --help prints this header.
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;; esac
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=provision.sh
. scripts/provision.sh
gfts_provision || exit 1

# every container this run's tests start carries this label (libs/testkit/src/containers.ts)
# (made here, never inherited: two runs sharing one would remove each other's containers)
export GFTS_TEST_RUN="$(date +%s)-$$-$RANDOM"
remove_test_containers() {
  local ids
  [ "${GFTS_KEEP_CONTAINERS:-}" = 1 ] && return 0
  ids="$("$GFTS_ENGINE" ps -aq --filter "label=gfts.test-run=$GFTS_TEST_RUN" 2>/dev/null)"
  [ -n "$ids" ] || return 0
  echo "removing this run's test containers" >&2
  # shellcheck disable=SC2086
  "$GFTS_ENGINE" rm -fv $ids >/dev/null 2>&1 || true
}
# On any exit: vitest handles Ctrl-C itself and exits 1, so the shell never sees the interrupt,
# and its teardown does not run; a normal run has stopped them already
trap remove_test_containers EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step() { printf '\n==> %s\n' "$*" >&2; }
failed=0
# the steps that failed, named at the end: their output is thousands of lines above it
failures=()
fail() { failed=1; failures+=("$1"); }

step "typecheck"
pnpm -s typecheck || fail "typecheck (pnpm typecheck)"
step "lint"
pnpm -s lint || fail "lint (pnpm lint)"
if [ -f scripts/validate-deploy.sh ]; then
  step "validate the Helm chart, compose, NATS and monitoring files"
  bash scripts/validate-deploy.sh || fail "deployment validation (scripts/validate-deploy.sh)"
fi

step "unit and integration tests"
mkdir -p test-results
rm -f test-results/vitest.json
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || fail "tests (vitest; each failed test is listed under 'Failed Tests' above)"

if [ "$failed" -ne 0 ]; then
  echo "failed:" >&2
  printf '  - %s\n' "${failures[@]}" >&2
fi
exit "$failed"
