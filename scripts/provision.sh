#!/usr/bin/env bash
# Makes this machine able to run the stack and the tests, installing only what is missing.
#
# Source it and run its function (". scripts/provision.sh && gfts_provision", in bash or zsh)
# so that PATH and the container settings it exports stay in the caller's shell; sourcing
# alone only defines the functions, and running it directly only warms the cache.
#
#   - Node >= 24: the system one when new enough, else the npm registry's node-<os>-<arch>@24.
#   - pnpm: the version pinned in package.json's packageManager field.
#   - A container engine for testcontainers: a working Docker, else Podman (installed with
#     apt-get when absent, configured for these machines (runc, cgroupfs, vfs storage), its
#     Docker-compatible socket started).
#   - Chromium (the console's browser tests, apps/console/test/integration): Debian's `chromium`
#     package at /usr/bin/chromium, installed with apt-get when absent (as root); exported as
#     GFTS_CHROMIUM. CHROMIUM_PATH overrides it.
#   - Schemathesis (the API fuzzer of services/gateway/test/integration/fuzz.test.ts): the
#     version pinned below, from PyPI into a venv; its `st` is exported as GFTS_SCHEMATHESIS.
#   - Images: with Docker the official mongo and nats images; with Podman (no registry
#     reachable) FROM-scratch images of FerretDB and nats-server built from the Go module
#     proxy. MONGO_IMAGE / NATS_IMAGE override either choice, except one of our own
#     localhost/gfts tags built from another recipe (left exported by an earlier provision):
#     that one is replaced by this checkout's.
#
# Everything is cached under $GFTS_CACHE, so a second run takes seconds.
# Run directly (bash scripts/provision.sh) it warms the cache; --help prints this header.

# this file's path: zsh (macOS's shell) has no BASH_SOURCE, and reads its own form only through eval
if [ -n "${ZSH_VERSION:-}" ]; then eval '_gfts_self="${(%):-%x}"'; else _gfts_self="${BASH_SOURCE[0]}"; fi
_gfts_root="$(cd "$(dirname "$_gfts_self")/.." && pwd)"
GFTS_CACHE="${GFTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gamer-services}"
GFTS_FERRETDB_VERSION="${GFTS_FERRETDB_VERSION:-v1.24.2}"
GFTS_NATS_VERSION="${GFTS_NATS_VERSION:-v2.11.17}"
GFTS_NODE_MAJOR=24
# 4.3.x breaks with the current hypothesis; 4.32 works.
GFTS_SCHEMATHESIS_VERSION="${GFTS_SCHEMATHESIS_VERSION:-4.32.5}"
export GFTS_CACHE

_gfts_say() { printf '==> %s\n' "$*" >&2; }
_gfts_die() { printf 'provision: %s\n' "$*" >&2; return 1; }

_gfts_node() {
  local major=0
  command -v node >/dev/null 2>&1 && major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$major" -ge "$GFTS_NODE_MAJOR" ]; then return 0; fi
  local os arch dir="$GFTS_CACHE/node$GFTS_NODE_MAJOR"
  os="$(uname -s | tr '[:upper:]' '[:lower:]')"
  case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
  local bin="$dir/node_modules/node-$os-$arch/bin"
  if [ ! -x "$bin/node" ]; then
    command -v npm >/dev/null 2>&1 ||
      _gfts_die "Node $GFTS_NODE_MAJOR is installed with npm from the npm registry, and there is no npm here: install any Node.js with npm first (e.g. apt-get install nodejs npm)" || return 1
    _gfts_say "installing Node $GFTS_NODE_MAJOR (system node is v$major) from the npm registry"
    npm install --silent --no-audit --no-fund --prefix "$dir" "node-$os-$arch@$GFTS_NODE_MAJOR" >&2 ||
      _gfts_die "could not install node-$os-$arch@$GFTS_NODE_MAJOR" || return 1
  fi
  export PATH="$bin:$PATH"
}

_gfts_pnpm() {
  local want
  want="$(node -p 'require(process.argv[1]).packageManager.split("@")[1]' "$_gfts_root/package.json")"
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$want" ]; then return 0; fi
  local dir="$GFTS_CACHE/pnpm-$want"
  if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
    _gfts_say "installing pnpm $want from the npm registry"
    npm install --silent --no-audit --no-fund --prefix "$dir" "pnpm@$want" >&2 ||
      _gfts_die "could not install pnpm@$want" || return 1
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

# macOS has no `timeout`: there `docker info` is asked without a bound (Docker Desktop answers
# or fails at once; until 2026-11-28 Docker was never found there, and provision looked for Podman)
_gfts_docker_works() {
  command -v docker >/dev/null 2>&1 || return 1
  if command -v timeout >/dev/null 2>&1; then timeout 10 docker info >/dev/null 2>&1; else docker info >/dev/null 2>&1; fi
}

_gfts_podman_socket_works() {
  [ -S /run/podman/podman.sock ] &&
    curl -fsS --max-time 5 --unix-socket /run/podman/podman.sock http://d/_ping >/dev/null 2>&1
}

# What only root may do here; a user who is not gets told what to do instead of a failure later.
_gfts_as_root() {
  [ "$(id -u)" = 0 ] && return 0
  if [ "${DOCKER_HOST:-}" = "unix:///run/podman/podman.sock" ]; then
    _gfts_die "DOCKER_HOST names Podman's socket, which this user cannot use, and $1 needs root: unset DOCKER_HOST to use Docker, or run as root"
  elif command -v docker >/dev/null 2>&1; then
    _gfts_die "docker is installed but 'docker info' fails for this user: start Docker, or add the user to the docker group and log in again ($1 needs root otherwise)"
  else
    _gfts_die "no usable Docker engine, and $1 needs root (these machines' Podman runs as root): run as root, or install Docker"
  fi
}

_gfts_podman() {
  # the socket's health check asks with curl: without it, a working socket looked dead
  command -v curl >/dev/null 2>&1 || _gfts_die "curl is needed to reach Podman's socket: install it (apt-get install curl)" || return 1
  # this machine's Podman is root's: a user's podman is rootless, with storage of its own,
  # where the images built below would not be the socket's (and its runtime not configured)
  _gfts_as_root "using Podman" || return 1
  if ! command -v podman >/dev/null 2>&1 || ! command -v runc >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] ||
      _gfts_die "no Docker engine and no Podman: install either (as root, apt-get install podman runc)" || return 1
    _gfts_say "installing podman and runc with apt-get"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc; } >&2 ||
      _gfts_die "apt-get install podman runc failed" || return 1
  fi
  # crun cannot set rlimits or cgroups on these machines; runc with cgroupfs can.
  if ! grep -qs 'runtime = "runc"' /etc/containers/containers.conf; then
    _gfts_say "configuring podman (runc, cgroupfs, vfs storage)"
    mkdir -p /etc/containers
    cat >/etc/containers/containers.conf <<'EOF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
EOF
    cat >/etc/containers/storage.conf <<'EOF'
[storage]
driver = "vfs"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
EOF
  fi
  if ! _gfts_podman_socket_works; then
    _gfts_say "starting podman's Docker-compatible API socket"
    mkdir -p /run/podman
    # Started from /: conmon inherits the service's working directory, and once that is gone
    # (a removed worktree) every container start fails with "write child: broken pipe".
    # In a session of its own, and left running like Docker's daemon: test runs and stacks
    # started later use it too, so the run that happened to start it (a stack stopped with
    # Ctrl-C or a signal to its process group) must not take it away from them.
    (cd / && exec setsid nohup podman system service --time=0 unix:///run/podman/podman.sock >"$GFTS_CACHE/podman-service.log" 2>&1) &
    local i
    for i in $(seq 1 50); do _gfts_podman_socket_works && break; sleep 0.2; done
    _gfts_podman_socket_works || _gfts_die "podman socket did not come up; see $GFTS_CACHE/podman-service.log" || return 1
  fi
  export DOCKER_HOST=unix:///run/podman/podman.sock
  # Ryuk's image cannot be pulled here; the tests stop their own containers.
  export TESTCONTAINERS_RYUK_DISABLED=true
}

# A writable copy of a module (path@version) from the Go module proxy at $2, replacing what is there.
_gfts_module_copy() {
  local dir
  dir="$(go mod download -json "$1" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')" || return 1
  [ -n "$dir" ] && rm -rf "$2" && cp -r "$dir" "$2" && chmod -R u+w "$2"
}

# Builds a static Go binary from the Go module proxy into $GFTS_CACHE/bin, once per version.
_gfts_go_binary() {
  local name="$1" version="$2" out="$GFTS_CACHE/bin/$1-$2-$(_gfts_recipe "$3")"
  [ -x "$out" ] && return 0
  command -v go >/dev/null 2>&1 || _gfts_die "building $name needs Go (or set MONGO_IMAGE/NATS_IMAGE to pullable images)" || return 1
  mkdir -p "$GFTS_CACHE/bin" "$GFTS_CACHE/build"
  _gfts_say "building $name $version from the Go module proxy (once; about a minute)"
  case "$name" in
    nats-server)
      CGO_ENABLED=0 GOBIN="$GFTS_CACHE/build/nats-$version" go install "github.com/nats-io/nats-server/v2@$version" >&2 ||
        return 1
      mv "$GFTS_CACHE/build/nats-$version/nats-server" "$out"
      ;;
    ferretdb)
      # The module zip lacks build/version/version.txt, without which the binary panics at
      # start (FerretDB#2982): build from a copy of the module with the file written in.
      local src="$GFTS_CACHE/build/ferretdb-$version"
      _gfts_module_copy "github.com/FerretDB/FerretDB@$version" "$src" || return 1
      printf '%s\n' "$version" >"$src/build/version/version.txt"
      # Our index-using pushdown for the SQLite backend, and atomic read-modify-write in the
      # handler (see scripts/images/ferretdb/README.md).
      local recipe="$_gfts_root/scripts/images/ferretdb"
      command -v git >/dev/null 2>&1 || _gfts_die "git is needed to apply the project's FerretDB patches: install it (apt-get install git)" || return 1
      (cd "$src" && git apply -p1 "$recipe/sqlite-pushdown.patch" && git apply -p1 "$recipe/atomic-writes.patch" &&
        git apply -p1 "$recipe/sjson-fast.patch" && git apply -p1 "$recipe/no-resource-tracking.patch" &&
        git apply -p1 "$recipe/read-before-write.patch" && git apply -p1 "$recipe/sjson-schema.patch" &&
        git apply -p1 "$recipe/sjson-values.patch" && git apply -p1 "$recipe/findandmodify-fields.patch" &&
        git apply -p1 "$recipe/debug-lines.patch" && git apply -p1 "$recipe/id-column.patch" &&
        git apply -p1 "$recipe/delete-chunks.patch") >&2 || return 1
      cp "$recipe/pushdown.go" "$src/internal/backends/sqlite/gfts_pushdown.go"
      cp "$recipe/atomic.go" "$src/internal/handler/gfts_atomic.go"
      cp "$recipe/push_slice.go" "$src/internal/handler/common/gfts_push_slice.go"
      cp "$recipe/in_set.go" "$src/internal/handler/common/gfts_in_set.go"
      cp "$recipe/sjson_fast.go" "$src/internal/handler/sjson/gfts_sjson_fast.go"
      cp "$recipe/sjson_schema.go" "$src/internal/handler/sjson/gfts_sjson_schema.go"
      cp "$recipe/sjson_values.go" "$src/internal/handler/sjson/gfts_sjson_values.go"
      cp "$recipe/field_at.go" "$src/internal/types/gfts_field_at.go"
      cp "$recipe/sjson_fast_test.go" "$src/internal/handler/sjson/gfts_sjson_fast_test.go"
      cp "$recipe/pushdown_test.go" "$src/internal/backends/sqlite/gfts_pushdown_test.go"
      cp "$recipe/id_column_test.go" "$src/internal/backends/sqlite/gfts_id_column_test.go"
      cp "$recipe/debug_lines_test.go" "$src/internal/util/fsql/gfts_debug_lines_test.go"
      cp "$recipe/push_slice_test.go" "$src/internal/handler/common/gfts_push_slice_test.go"
      cp "$recipe/in_set_test.go" "$src/internal/handler/common/gfts_in_set_test.go"
      # The decoding fast paths must give what upstream's decoders give: their tests and
      # upstream's own sjson tests run before anything is built (FerretDB's test helpers
      # look for the repository's .git); so must the pushdown (its SQL kept per query shape,
      # the fields it leaves to Go), the _id column (every by-_id path, tables created
      # before it), the statements' debug lines (built only when logged), $push's modifiers
      # and $in's sets.
      (cd "$src" && git init -q && go test -count=1 ./internal/handler/sjson/ &&
        go test -count=1 -run Gfts ./internal/backends/sqlite/ ./internal/util/fsql/ ./internal/handler/common/) >&2 || return 1
      _gfts_fast_libc "$src" "$recipe" || return 1
      _gfts_stmt_cache "$src" "$recipe" || return 1
      (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$out" ./cmd/ferretdb) >&2 || return 1
      rm -rf "$src"
      ;;
  esac
}

# modernc.org/libc (the C library the pure-Go SQLite runs on) with memcmp, memcpy, memmove
# and memset on Go's runtime routines instead of byte loops (scripts/images/ferretdb/README.md,
# "memcmp and memcpy"): a patched copy of the module FerretDB's go.mod names, used through
# a replace directive. Each function gains a first line that calls the helper; the build
# fails if any of the eight is not found exactly once.
_gfts_fast_libc() {
  local src="$1" recipe="$2" version libc="$1/gfts-libc"
  version="$(cd "$src" && go list -m -f '{{.Version}}' modernc.org/libc)" || return 1
  _gfts_module_copy "modernc.org/libc@$version" "$libc" || return 1
  cp "$recipe/libc_mem.go" "$libc/gfts_mem.go"
  local arch fn head call
  for arch in amd64 arm64; do
    for fn in \
      'Xmemcmp(tls \*TLS, vl uintptr, vr uintptr, n Tsize_t) (r1 int32) {|return gftsMemcmp(vl, vr, n)' \
      'Xmemcpy(tls \*TLS, dest uintptr, src uintptr, n Tsize_t) (r uintptr) {|return gftsMemmove(dest, src, n)' \
      'Xmemmove(tls \*TLS, dest uintptr, src uintptr, n Tsize_t) (r uintptr) {|return gftsMemmove(dest, src, n)' \
      'Xmemset(tls \*TLS, dest uintptr, c int32, n Tsize_t) (r uintptr) {|return gftsMemset(dest, c, n)'; do
      head="${fn%%|*}" call="${fn#*|}"
      [ "$(grep -c "^func $head\$" "$libc/ccgo_linux_$arch.go")" = 1 ] ||
        _gfts_die "modernc.org/libc $version: func ${head%%(*} not found once in ccgo_linux_$arch.go" || return 1
      sed -i "s/^func $head\$/&\n\t$call/" "$libc/ccgo_linux_$arch.go"
    done
  done
  (cd "$src" && go mod edit -replace "modernc.org/libc=./gfts-libc") || return 1
  mkdir -p "$src/internal/util/gftslibc" && cp "$recipe/libc_mem_test.go" "$src/internal/util/gftslibc/libc_mem_test.go"
  (cd "$src" && go test -count=1 ./internal/util/gftslibc/) >&2 || return 1
}

# modernc.org/sqlite (the pure-Go SQLite FerretDB runs on) keeping prepared statements per
# connection instead of preparing each statement again on every execution
# (scripts/images/ferretdb/stmt_cache.go; README.md, "Prepared statements kept"): a patched
# copy of the module FerretDB's go.mod names, used through a replace directive. Three of
# the driver's functions are renamed for the cache to wrap; the build fails if any is not
# found exactly once. Upstream's tests need modules the build does not; ours run instead.
_gfts_stmt_cache() {
  local src="$1" recipe="$2" version copy="$1/gfts-sqlite" fn
  version="$(cd "$src" && go list -m -f '{{.Version}}' modernc.org/sqlite)" || return 1
  _gfts_module_copy "modernc.org/sqlite@$version" "$copy" && rm -f "$copy"/*_test.go || return 1
  cp "$recipe/stmt_cache.go" "$copy/gfts_stmt_cache.go" && cp "$recipe/stmt_cache_test.go" "$copy/gfts_stmt_cache_test.go" || return 1
  for fn in 'prepareV2(zSQL \*uintptr) (pstmt uintptr, err error)' 'finalize(pstmt uintptr) error' 'closeV2(db uintptr) error'; do
    [ "$(grep -c "^func (c \*conn) $fn {\$" "$copy/sqlite.go")" = 1 ] ||
      _gfts_die "modernc.org/sqlite $version: func ${fn%%(*} not found once in sqlite.go" || return 1
    sed -i "s/^func (c \*conn) ${fn%%(*}(/func (c *conn) ${fn%%(*}Uncached(/" "$copy/sqlite.go"
  done
  [ "$(grep -c '^type conn struct {$' "$copy/sqlite.go")" = 1 ] ||
    _gfts_die "modernc.org/sqlite $version: type conn not found once in sqlite.go" || return 1
  sed -i 's/^type conn struct {$/&\n\tgftsStmts gftsStmtCache/' "$copy/sqlite.go"
  (cd "$copy" && go test -count=1 -run Gfts .) >&2 || return 1
  (cd "$src" && go mod edit -replace "modernc.org/sqlite=./gfts-sqlite") || return 1
}

_gfts_local_image() {
  local image="$1" name="$2" version="$3" dir="$_gfts_root/scripts/images/$4"
  podman image exists "$image" 2>/dev/null && return 0
  _gfts_go_binary "$name" "$version" "$4" || return 1
  local binary
  binary="$GFTS_CACHE/bin/$name-$version-$(_gfts_recipe "$4")"
  _gfts_say "building image $image"
  # In a subshell with traps of its own: the build context goes away on Ctrl-C too, and the
  # caller's traps (scripts/stack.sh's cleanup) stay as they were.
  (
    ctx="$(mktemp -d)"
    trap 'rm -rf "$ctx"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cp "$dir/Containerfile" "$ctx/" && cp "$binary" "$ctx/$name" || exit 1
    mkdir -p "$ctx/state" && : >"$ctx/state/.keep"
    podman build -q -t "$image" "$ctx" >&2
  )
}

# A hash of everything an image is built from (Containerfile, patches, sources), so a changed
# recipe builds a new binary and image.
# The hash of what goes into an image's build (not the docs beside it: a README edit
# rebuilds nothing), in its tag, so a changed recipe builds a new image.
_gfts_recipe() {
  local f files=()
  for f in "$_gfts_root/scripts/images/$1"/*; do [[ $f == *.md ]] || files+=("$f"); done
  cat "${files[@]}" | cksum | cut -d' ' -f1
}

_gfts_containers() {
  # Our own Podman socket answers the Docker API too, but behind it no image can be pulled.
  if [ "${DOCKER_HOST:-}" != "unix:///run/podman/podman.sock" ] && _gfts_docker_works; then
    export GFTS_ENGINE=docker
    export MONGO_IMAGE="${MONGO_IMAGE:-mongo:7}"
    export NATS_IMAGE="${NATS_IMAGE:-nats:2.11}"
    return 0
  fi
  _gfts_podman || return 1
  export GFTS_ENGINE=podman
  # The tag carries a hash of the recipe, so a changed Containerfile builds a new image.
  local ferretdb="localhost/gfts/ferretdb:${GFTS_FERRETDB_VERSION#v}-$(_gfts_recipe ferretdb)"
  local nats="localhost/gfts/nats:${GFTS_NATS_VERSION#v}-$(_gfts_recipe nats)"
  # One of our tags from another recipe was exported by an earlier provision in this shell
  # (before a pull or a change of branch): this checkout's recipe decides, or the tests
  # would run against the store as it was. Images of other names are left as given.
  case "${MONGO_IMAGE:-}" in localhost/gfts/ferretdb:*) if [ "$MONGO_IMAGE" != "$ferretdb" ]; then
    _gfts_say "MONGO_IMAGE $MONGO_IMAGE was built from another recipe; using $ferretdb"
    MONGO_IMAGE="$ferretdb"
  fi ;; esac
  case "${NATS_IMAGE:-}" in localhost/gfts/nats:*) if [ "$NATS_IMAGE" != "$nats" ]; then
    _gfts_say "NATS_IMAGE $NATS_IMAGE was built from another recipe; using $nats"
    NATS_IMAGE="$nats"
  fi ;; esac
  export MONGO_IMAGE="${MONGO_IMAGE:-$ferretdb}"
  export NATS_IMAGE="${NATS_IMAGE:-$nats}"
  case "$MONGO_IMAGE" in localhost/gfts/ferretdb:*)
    _gfts_local_image "$MONGO_IMAGE" ferretdb "$GFTS_FERRETDB_VERSION" ferretdb || return 1 ;;
  esac
  case "$NATS_IMAGE" in localhost/gfts/nats:*)
    _gfts_local_image "$NATS_IMAGE" nats-server "$GFTS_NATS_VERSION" nats || return 1 ;;
  esac
}

# Schemathesis in its own venv, once per version. Not fatal: only the fuzz test needs it,
# and that test says how to get it when it is missing.
_gfts_schemathesis() {
  local dir="$GFTS_CACHE/schemathesis-$GFTS_SCHEMATHESIS_VERSION"
  if [ ! -x "$dir/bin/st" ]; then
    command -v python3 >/dev/null 2>&1 || { _gfts_say "no python3: skipping schemathesis (the fuzz test will fail)"; return 0; }
    _gfts_say "installing schemathesis $GFTS_SCHEMATHESIS_VERSION from PyPI (once)"
    rm -rf "$dir"
    { python3 -m venv "$dir" && "$dir/bin/pip" install -q --disable-pip-version-check "schemathesis==$GFTS_SCHEMATHESIS_VERSION"; } >&2 ||
      { _gfts_say "schemathesis install failed (the fuzz test will fail)"; rm -rf "$dir"; return 0; }
  fi
  export GFTS_SCHEMATHESIS="$dir/bin/st"
}

# Debian's Chromium for the console's browser tests (Playwright cannot download its own
# browser here). Not fatal: only those tests need it, and they say how to get it.
_gfts_chromium() {
  local bin="${CHROMIUM_PATH:-/usr/bin/chromium}" found
  # another distribution's or a laptop's Chromium or Chrome, when no CHROMIUM_PATH says which
  if [ ! -x "$bin" ] && [ -z "${CHROMIUM_PATH:-}" ]; then
    for found in "$(command -v chromium 2>/dev/null)" "$(command -v chromium-browser 2>/dev/null)" "$(command -v google-chrome 2>/dev/null)" \
      "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" "/Applications/Chromium.app/Contents/MacOS/Chromium"; do
      # not Ubuntu's snap wrapper (a script that only says to install the snap) nor a snap's
      # confined binary: Playwright cannot launch either
      case "$found" in /snap/*) continue ;; esac
      if [ -n "$found" ] && [ -x "$found" ] && ! head -c 2 "$found" 2>/dev/null | grep -q '#!'; then bin="$found"; break; fi
    done
  fi
  if [ ! -x "$bin" ] && [ -z "${CHROMIUM_PATH:-}" ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      _gfts_say "installing chromium with apt-get (the console's browser tests drive it)"
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >&2 ||
        _gfts_say "apt-get install chromium failed (the browser tests will fail)"
    else
      _gfts_say "no Chromium or Chrome found and not root: install one (Debian, Fedora: chromium; Ubuntu: Google Chrome, its chromium is a snap), or set CHROMIUM_PATH, for the console's browser tests"
    fi
  fi
  [ -x "$bin" ] && export GFTS_CHROMIUM="$bin"
  return 0
}

# Installs the workspace's packages when the lockfile changed since the last install.
_gfts_packages() {
  local stamp="$_gfts_root/node_modules/.gfts-lock-stamp" sum
  sum="$(cat "$_gfts_root/pnpm-lock.yaml" "$_gfts_root/package.json" 2>/dev/null | cksum)"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] && return 0
  _gfts_say "installing workspace packages with pnpm"
  (cd "$_gfts_root" && CI=true pnpm install --frozen-lockfile --reporter=append-only) >&2 || return 1
  printf '%s' "$sum" >"$stamp"
}

gfts_provision() {
  mkdir -p "$GFTS_CACHE"
  _gfts_node && _gfts_pnpm && _gfts_packages && _gfts_schemathesis && _gfts_chromium && _gfts_containers
}

if [ "${BASH_SOURCE[0]:-}" = "$0" ]; then
  case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
  set -euo pipefail
  gfts_provision
  _gfts_say "ready: node $(node --version), pnpm $(pnpm --version), engine $GFTS_ENGINE, mongo image $MONGO_IMAGE, nats image $NATS_IMAGE"
fi
