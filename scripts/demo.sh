#!/usr/bin/env bash
# A tour of the running stack (scripts/stack.sh) through the gateway only: an admin
# creates a task, a gamer gets it assigned, a game server reports a game, the gamer sees it
# completed, claims the reward and finds it in the inventory; two gamers become friends,
# told of the request and the acceptance by live notifications (when the stack runs the
# notifications service).
# The calls are made by scripts/demo.ts with the typed client @gfts/client (libs/client);
# this script mints their tokens (scripts/mint-token.mjs) and prints each call.
#   scripts/demo.sh [gateway-url]        (default http://localhost:8080; http:// or https://)
# --help prints this header. An unknown option or a second argument is refused (exit 2); a
# gateway that does not answer is one line, "cannot reach <url>: is scripts/stack.sh running?"
# (exit 1).
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
  -*) { echo "scripts/demo.sh: unknown option $1"; echo; usage; } >&2; exit 2 ;;
esac
if [ "$#" -gt 1 ]; then { echo "scripts/demo.sh: one argument at most, the gateway URL (got $#)"; echo; usage; } >&2; exit 2; fi
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
gw="${1:-http://localhost:${GATEWAY_PORT:-8080}}"
case "$gw" in
  http://* | https://*) ;;
  *) { echo "scripts/demo.sh: the gateway URL must start with http:// or https:// (got $gw)"; echo; usage; } >&2; exit 2 ;;
esac
# Node 24 and the workspace's packages (demo.ts is TypeScript and imports @gfts/client), as
# scripts/stack.sh gets them: the Node 24 it put on PATH was its own process's only.
# shellcheck source=provision.sh
. scripts/provision.sh
if ! { _gfts_node && _gfts_pnpm && _gfts_packages; }; then
  echo "scripts/demo.sh: needs Node 24 and the workspace's packages; see the lines above, or run: bash scripts/provision.sh" >&2
  exit 1
fi
mint() { node scripts/mint-token.mjs "$@"; }
uuid() { node -e 'console.log(crypto.randomUUID())'; }

DEMO_APP=$(uuid); DEMO_ANN_ID=$(uuid); DEMO_BOB_ID=$(uuid)
ADMIN=$(mint --app "$DEMO_APP" --roles admin --name Admin)
SERVER=$(mint --app "$DEMO_APP" --roles server --name GameServer)
ANN=$(mint --app "$DEMO_APP" --sub "$DEMO_ANN_ID" --name Ann)
BOB=$(mint --app "$DEMO_APP" --sub "$DEMO_BOB_ID" --name Bob)
export DEMO_APP DEMO_ANN_ID DEMO_BOB_ID ADMIN SERVER ANN BOB
node scripts/demo.ts "$gw"
