#!/usr/bin/env bash
# A tour of the running stack (scripts/stack.sh) through the gateway only: an admin
# creates a task, a gamer gets it assigned, a game server reports a game, the gamer sees it
# completed, claims the reward and finds it in the inventory; two gamers become friends.
#   scripts/demo.sh [gateway-url]        (default http://localhost:8080)
# --help prints this header.
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;; esac
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
gw="${1:-http://localhost:${GATEWAY_PORT:-8080}}"
mint() { node scripts/mint-token.mjs "$@"; }
uuid() { node -e 'console.log(crypto.randomUUID())'; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);console.log(eval("v"+process.argv[1]))})' "$1"; }
call() { # METHOD PATH TOKEN [BODY]
  local args=(-sS -X "$1" -H "Authorization: Bearer $3")
  [ $# -ge 4 ] && args+=(-H 'content-type: application/json' -d "$4")
  curl "${args[@]}" "$gw$2"
}
step() { printf '\n\033[1m%s\033[0m\n' "$*"; }

app=$(uuid); ann_id=$(uuid); bob_id=$(uuid); sword=$(uuid)
admin=$(mint --app "$app" --roles admin --name Admin)
server=$(mint --app "$app" --roles server --name GameServer)
ann=$(mint --app "$app" --sub "$ann_id" --name Ann)
bob=$(mint --app "$app" --sub "$bob_id" --name Bob)

step "1. admin creates a daily task: 3 wins within 5 games, reward 1 sword"
call POST "/api/v1/$app/tasks" "$admin" "{\"name\":\"Win 3\",\"description\":\"Win 3 games out of 5\",\"targetValue\":3,\"numberOfGames\":5,\"family\":\"daily\",\"parentTaskId\":null,\"applicationStatsId\":\"wins\",\"isAchievement\":false,\"rewards\":[{\"inventoryItemId\":\"$sword\",\"quantity\":1}]}"
step "2. Ann asks for one daily task"
assigned=$(call POST /api/v1/tasks/assign "$ann" '{"family":"DAILY","numberOfTasks":1}')
echo "$assigned"
task_id=$(echo "$assigned" | json '[0].id')
step "3. the game server reports three games with a win each"
for game in 1 2 3; do
  call POST /api/v1/stats "$server" "{\"eventId\":\"$(uuid)\",\"applicationId\":\"$app\",\"gamerId\":\"$ann_id\",\"gameId\":\"match-$game\",\"occurredAt\":\"$(date -u +%FT%TZ)\",\"stats\":[{\"applicationStatsId\":\"wins\",\"value\":1}]}"
  echo
done
step "4. Ann's completed tasks (the consumer applies the events within moments)"
for _ in $(seq 1 50); do
  done_tasks=$(call GET '/api/v1/tasks?completed=true' "$ann")
  [ "$done_tasks" != "[]" ] && break
  sleep 0.2
done
echo "$done_tasks"
step "5. Ann claims the reward, twice (the second is refused)"
call POST "/api/v1/tasks/$task_id/claim" "$ann"; echo
call POST "/api/v1/tasks/$task_id/claim" "$ann"; echo
step "6. Ann's inventory"
call GET /api/v1/inventory "$ann"; echo
step "7. Bob registers (any call does), Ann finds him and sends a request, Bob accepts"
call GET /api/v1/friendship "$bob" >/dev/null
call GET '/api/v1/friendship/search?displayName=bo' "$ann"; echo
call POST /api/v1/friendship "$ann" "{\"target\":\"$bob_id\"}"; echo
request_id=$(call GET /api/v1/friendship/requests/incoming "$bob" | json '[0].id')
call POST "/api/v1/friendship/$request_id/accept" "$bob"; echo
call GET /api/v1/friendship "$ann"; echo
