#!/usr/bin/env bash
# A tour of the running stack (scripts/stack.sh) through the gateway only: an admin
# creates a task, a gamer gets it assigned, a game server reports a game, the gamer sees it
# completed, claims the reward and finds it in the inventory; two gamers become friends,
# told of the request and the acceptance by live notifications (when the stack runs the
# notifications service).
# The calls are made by scripts/demo.ts with the typed client @gfts/client (libs/client);
# this script mints their tokens (scripts/mint-token.mjs) and prints each call.
#   scripts/demo.sh [gateway-url]        (default http://localhost:8080)
# --help prints this header.
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;; esac
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
gw="${1:-http://localhost:${GATEWAY_PORT:-8080}}"
mint() { node scripts/mint-token.mjs "$@"; }
uuid() { node -e 'console.log(crypto.randomUUID())'; }

DEMO_APP=$(uuid); DEMO_ANN_ID=$(uuid); DEMO_BOB_ID=$(uuid)
ADMIN=$(mint --app "$DEMO_APP" --roles admin --name Admin)
SERVER=$(mint --app "$DEMO_APP" --roles server --name GameServer)
ANN=$(mint --app "$DEMO_APP" --sub "$DEMO_ANN_ID" --name Ann)
BOB=$(mint --app "$DEMO_APP" --sub "$DEMO_BOB_ID" --name Bob)
export DEMO_APP DEMO_ANN_ID DEMO_BOB_ID ADMIN SERVER ANN BOB
node scripts/demo.ts "$gw"
