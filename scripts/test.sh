#!/usr/bin/env bash
# Runs every check and test: typecheck, lint, the deployment manifests' validation, unit
# tests, and integration tests against real MongoDB-compatible and NATS servers (started by
# testcontainers). Installs what is missing first (scripts/provision.sh).
#
#   scripts/test.sh                 # everything
#   scripts/test.sh services/tasks  # only tests under a path (checks still run)
# Results: test-results/vitest.json (machine-readable) and the console.
# --help prints this header.
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;; esac
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=provision.sh
. scripts/provision.sh
gfts_provision || exit 1

step() { printf '\n==> %s\n' "$*" >&2; }
failed=0

step "typecheck"
pnpm -s typecheck || failed=1
step "lint"
pnpm -s lint || failed=1
if [ -f scripts/validate-deploy.sh ]; then
  step "validate the Helm chart, compose, NATS and monitoring files"
  bash scripts/validate-deploy.sh || failed=1
fi

step "unit and integration tests"
mkdir -p test-results
rm -f test-results/vitest.json
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || failed=1

if [ "$failed" -ne 0 ]; then
  echo "some checks or tests failed (see above)" >&2
fi
exit "$failed"
