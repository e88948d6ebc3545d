#!/usr/bin/env bash
# Builds the four service images from their real Dockerfiles with Podman and runs the
# stack, on machines that have Podman but cannot pull base images (this project's
# machines: no registry but the package registries).
#
#   . scripts/provision.sh && gfts_provision   # Node 24, Podman configured, FerretDB and NATS images
#   bash deploy/tools/image-smoke.sh
#
# The one substitution: node:24-slim (and the distroless runtime) cannot be pulled, so
# a stand-in is built from Debian 12 (debootstrap, the same base node:24-slim uses) plus
# the Node 24 binary provision.sh installed and npm from the npm registry, and passed
# as NODE_IMAGE and RUNTIME_IMAGE. Every instruction of the Dockerfiles runs as
# written; the distroless-specific part not exercised is distroless itself (its PATH
# to /nodejs/bin). The host's CA bundle is copied into the stand-in so npm reaches the
# registry through this machine's TLS setup.
#
# Then: FerretDB x3 and NATS (provision.sh's images) and the four services on one
# network, each service read-only, uid 65532, all capabilities dropped; checks /readyz
# of each (with the compose health-check command), an authenticated request through the
# gateway to friendship, and that each service exits 0 on SIGTERM within its grace.
# Takes a few minutes (Podman's vfs storage is slow). Cleans up its containers, network
# and service images; keeps the stand-in base image for the next run.
# --help prints this header.
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;; esac
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
GFTS_CACHE="${GFTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gamer-services}"
STANDIN="${STANDIN_IMAGE:-localhost/gfts/node24-standin:bookworm}"
: "${MONGO_IMAGE:?run . scripts/provision.sh \&\& gfts_provision first (MONGO_IMAGE unset)}"
: "${NATS_IMAGE:?source scripts/provision.sh first (NATS_IMAGE unset)}"
NET="gfts-smoke-$$"
SECRET=dev-only-internal-secret-0123456789abcdef
JWT=dev-only-secret-change-me-0123456789abcdef
say() { printf '==> %s\n' "$*"; }

containers=()
cleanup() {
  for c in "${containers[@]}"; do podman rm -f "$c" >/dev/null 2>&1 || true; done
  podman network rm "$NET" >/dev/null 2>&1 || true
  for s in gateway friendship tasks notifications; do podman rmi "localhost/gfts/$s:smoke-$$" >/dev/null 2>&1 || true; done
  rm -rf "${WORK:-/nonexistent}"
}
trap cleanup EXIT
WORK="$(mktemp -d)"

if ! podman image exists "$STANDIN"; then
  say "building the stand-in for node:24-slim ($STANDIN)"
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }
  node_bin="$(command -v node)"
  [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ] || { echo "needs Node 24 on PATH (provision.sh)"; exit 1; }
  debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log"; exit 1; }
  mkdir -p "$WORK/rootfs/usr/local/bin" "$WORK/rootfs/usr/local/lib/node_modules/npm" "$WORK/rootfs/etc/ssl/certs"
  cp "$node_bin" "$WORK/rootfs/usr/local/bin/node"
  (cd "$WORK" && npm pack --silent npm@11 >/dev/null)
  tar -xzf "$WORK"/npm-*.tgz -C "$WORK/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$WORK/rootfs/usr/local/bin/npm"
  cp /etc/ssl/certs/ca-certificates.crt "$WORK/rootfs/etc/ssl/certs/ca-certificates.crt"
  tar -C "$WORK/rootfs" -c . | podman import -q \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - "$STANDIN" >/dev/null
  rm -rf "$WORK/rootfs"
fi

say "building the images from services/*/Dockerfile (context: the committed tree)"
git -C "$ROOT" archive HEAD | tar -x -C "$WORK"
for s in gateway friendship tasks notifications; do
  started=$SECONDS
  podman build -q -f "$WORK/services/$s/Dockerfile" --build-arg NODE_IMAGE="$STANDIN" --build-arg RUNTIME_IMAGE="$STANDIN" \
    -t "localhost/gfts/$s:smoke-$$" "$WORK" >"$WORK/build-$s.log" 2>&1 || { tail -30 "$WORK/build-$s.log"; exit 1; }
  echo "    $s built in $((SECONDS - started))s"
done

say "starting FerretDB x3, NATS and the services"
podman network create "$NET" >/dev/null
run() { local name="$1"; shift; containers+=("$name"); podman run -d --name "$name" --network "$NET" "$@" >/dev/null; }
run "$NET-friendship-db" --network-alias friendship-db "$MONGO_IMAGE"
run "$NET-tasks-db" --network-alias tasks-db "$MONGO_IMAGE"
run "$NET-notifications-db" --network-alias notifications-db "$MONGO_IMAGE"
run "$NET-nats" --network-alias nats "$NATS_IMAGE"
hardened=(--read-only --tmpfs /tmp:size=64m --cap-drop ALL --security-opt no-new-privileges -e "INTERNAL_TOKEN_SECRET=$SECRET")
run "$NET-friendship" --network-alias friendship "${hardened[@]}" -e MONGO_URL=mongodb://friendship-db:27017/friendship -e NATS_URL=nats://nats:4222 "localhost/gfts/friendship:smoke-$$"
run "$NET-tasks" --network-alias tasks "${hardened[@]}" -e MONGO_URL=mongodb://tasks-db:27017/tasks -e NATS_URL=nats://nats:4222 "localhost/gfts/tasks:smoke-$$"
run "$NET-notifications" --network-alias notifications "${hardened[@]}" -e MONGO_URL=mongodb://notifications-db:27017/notifications -e NATS_URL=nats://nats:4222 "localhost/gfts/notifications:smoke-$$"
run "$NET-gateway" "${hardened[@]}" -e FRIENDSHIP_URL=http://friendship:8081 -e TASKS_URL=http://tasks:8082 -e NOTIFICATIONS_URL=http://notifications:8083 -e "JWT_SECRET=$JWT" "localhost/gfts/gateway:smoke-$$"

ready() { # the compose health check, run inside the container
  podman exec "$NET-$1" node -e "fetch('http://127.0.0.1:$2/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null
}
for pair in friendship:8081 tasks:8082 notifications:8083 gateway:8080; do
  s="${pair%%:*}" port="${pair#*:}"
  for _ in $(seq 1 60); do ready "$s" "$port" && break; sleep 1; done
  ready "$s" "$port" || { podman logs "$NET-$s" | tail -20; echo "FAILED: $s never became ready"; exit 1; }
  echo "    $s ready (uid $(podman exec "$NET-$s" id -u), read-only root: $(podman exec "$NET-$s" sh -c 'touch /app/x 2>/dev/null && echo no || echo yes'))"
done

say "an authenticated request through the gateway"
status="$(podman exec -e "JWT=$JWT" "$NET-gateway" node -e "
const c=require('node:crypto'), b=o=>Buffer.from(JSON.stringify(o)).toString('base64url');
const h=b({alg:'HS256',typ:'JWT'}), p=b({sub:crypto.randomUUID(),app:crypto.randomUUID(),name:'Smoke',exp:Math.floor(Date.now()/1000)+300});
const t=h+'.'+p+'.'+c.createHmac('sha256',process.env.JWT).update(h+'.'+p).digest('base64url');
fetch('http://127.0.0.1:8080/api/v1/friendship',{headers:{authorization:'Bearer '+t}}).then(async r=>console.log(r.status+' '+await r.text()));")"
echo "    GET /api/v1/friendship -> $status"
case "$status" in 200*) ;; *) echo "FAILED: expected 200"; exit 1 ;; esac

say "SIGTERM"
for s in gateway friendship tasks notifications; do
  podman stop -t 15 "$NET-$s" >/dev/null
  code="$(podman inspect "$NET-$s" --format '{{.State.ExitCode}}')"
  echo "    $s exited $code"
  [ "$code" = 0 ] || { podman logs "$NET-$s" | tail -10; echo "FAILED: $s exit code $code"; exit 1; }
done
echo "image-smoke: OK: 4 images built from their Dockerfiles, stack ready, request served, clean SIGTERM exits"
