#!/usr/bin/env bash
# Validates the deployment files offline: Kubernetes (kustomize), Compose, NATS
# configuration, Dockerfiles and the cross-file policy checks. No cluster, no Docker
# engine and no network beyond the package registries (PyPI, the Go module proxy).
#
#   bash scripts/validate-deploy.sh
#
# Steps:
#   1. tools, installed once into $GFTS_CACHE (default ~/.cache/gamer-services):
#        kustomize       go install sigs.k8s.io/kustomize/kustomize/v5 (pinned below;
#                        `kubectl kustomize` when Go is missing)
#        kubernetes-validate  from PyPI, in a venv; ships the Kubernetes JSON schemas
#        composecheck    deploy/tools/composecheck, built on compose-spec/compose-go
#                        (the library `docker compose` uses; it embeds the Compose
#                        Specification JSON schema)
#        nats-server     go install, the version scripts/provision.sh uses
#   2. kustomize build of base, overlays/dev and overlays/prod
#   3. every rendered object against the Kubernetes schemas, strict (unknown fields
#      fail), for the oldest and the newest Kubernetes version we support
#   4. docker-compose.yml: schema, interpolation and model consistency
#   5. nats-server -t on each overlay's nats.conf and compose's (with nats-auth.conf)
#   6. deploy/tools/check_deploy.py: security context, probes, grace periods,
#      references, NetworkPolicy reachability, env vars against the services' config.ts,
#      Dockerfile consistency (see that file)
#
# Exit status 0 only when every step passed; the last line is a one-line summary.
# Environment: GFTS_CACHE, K8S_VERSIONS ("1.30.0 1.37.0"), KEEP_RENDERED=1 to keep the
# rendered manifests (their directory is printed).

set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GFTS_CACHE="${GFTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gamer-services}"
BIN="$GFTS_CACHE/bin"
# v5.8.2 is the newest kustomize v5 that builds with Go 1.26 (v5.8.3 requires Go 1.27).
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
KUBERNETES_VALIDATE_VERSION="${KUBERNETES_VALIDATE_VERSION:-1.37.0}"
NATS_VERSION="${GFTS_NATS_VERSION:-v2.11.17}"
# 1.30: the oldest version we support (lifecycle.preStop.sleep); 1.37: the newest the
# schema package ships, which catches APIs removed since.
K8S_VERSIONS="${K8S_VERSIONS:-1.30.0 1.37.0}"
OVERLAYS=(base overlays/dev overlays/prod)

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-buildvcs=false"

started=$SECONDS
step_count=0
failed_steps=()
say() { printf '==> %s\n' "$*"; }
ok() { printf '    ok: %s\n' "$*"; }
bad() { printf '    FAILED: %s\n' "$*"; }
step() {
  step_count=$((step_count + 1))
  say "[$step_count] $*"
}
record_failure() { failed_steps+=("$1"); }
die() {
  bad "$*"
  printf 'validate-deploy: FAILED during setup (%s) after %ss\n' "$*" "$((SECONDS - started))"
  exit 1
}

mkdir -p "$BIN" || die "cannot create $BIN"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/validate-deploy.XXXXXX")" || die "mktemp failed"
if [ "${KEEP_RENDERED:-0}" = 1 ]; then
  trap 'echo "rendered manifests kept in $WORK"' EXIT
else
  trap 'rm -rf "$WORK"' EXIT
fi

# ------------------------------------------------------------------------------ tools
step "tools (cached in $GFTS_CACHE)"

KUSTOMIZE=()
kustomize_bin="$BIN/kustomize-$KUSTOMIZE_VERSION"
if [ -x "$kustomize_bin" ]; then
  KUSTOMIZE=("$kustomize_bin" build)
elif command -v go >/dev/null 2>&1; then
  printf '    building kustomize %s with go install (once) ...\n' "$KUSTOMIZE_VERSION"
  if GOBIN="$WORK/gobin" go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >"$WORK/kustomize-install.log" 2>&1; then
    mv "$WORK/gobin/kustomize" "$kustomize_bin" && KUSTOMIZE=("$kustomize_bin" build)
  else
    tail -5 "$WORK/kustomize-install.log"
  fi
fi
if [ ${#KUSTOMIZE[@]} -eq 0 ] && command -v kubectl >/dev/null 2>&1 && kubectl kustomize --help >/dev/null 2>&1; then
  KUSTOMIZE=(kubectl kustomize)
fi
[ ${#KUSTOMIZE[@]} -gt 0 ] || die "no kustomize: install Go (go install sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION) or kubectl"
ok "kustomize: ${KUSTOMIZE[*]}"

venv="$GFTS_CACHE/validate-venv"
stamp="$venv/.gfts-kubernetes-validate-$KUBERNETES_VALIDATE_VERSION"
if [ ! -f "$stamp" ]; then
  printf '    installing kubernetes-validate %s from PyPI into %s (once) ...\n' "$KUBERNETES_VALIDATE_VERSION" "$venv"
  rm -rf "$venv"
  { python3 -m venv "$venv" &&
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" &&
    touch "$stamp"; } >"$WORK/pip.log" 2>&1 || { tail -20 "$WORK/pip.log"; die "could not install kubernetes-validate (python3 -m venv and pip needed)"; }
fi
PY="$venv/bin/python"
KV="$venv/bin/kubernetes-validate"
ok "kubernetes-validate $("$KV" --version 2>/dev/null | awk '{print $NF}')"

composecheck_src="$ROOT/deploy/tools/composecheck"
composecheck_key="$(cat "$composecheck_src/go.mod" "$composecheck_src/go.sum" "$composecheck_src"/*.go | cksum | cut -d' ' -f1)"
COMPOSECHECK="$BIN/composecheck-$composecheck_key"
if [ ! -x "$COMPOSECHECK" ]; then
  command -v go >/dev/null 2>&1 || die "building composecheck needs Go"
  printf '    building composecheck (compose-spec/compose-go) with go build (once) ...\n'
  (cd "$composecheck_src" && go build -trimpath -o "$COMPOSECHECK" .) >"$WORK/composecheck-build.log" 2>&1 ||
    { tail -20 "$WORK/composecheck-build.log"; die "could not build deploy/tools/composecheck"; }
fi
ok "composecheck ($(grep -m1 'compose-spec/compose-go' "$composecheck_src/go.mod" | awk '{print $NF}'))"

# Same file name as scripts/provision.sh, so either one's build serves both.
NATS_SERVER="$BIN/nats-server-$NATS_VERSION"
if [ ! -x "$NATS_SERVER" ]; then
  command -v go >/dev/null 2>&1 || die "building nats-server needs Go"
  printf '    building nats-server %s with go install (once; about a minute) ...\n' "$NATS_VERSION"
  GOBIN="$WORK/gobin" go install "github.com/nats-io/nats-server/v2@$NATS_VERSION" >"$WORK/nats-install.log" 2>&1 ||
    { tail -20 "$WORK/nats-install.log"; die "could not build nats-server $NATS_VERSION"; }
  mv "$WORK/gobin/nats-server" "$NATS_SERVER"
fi
ok "nats-server $("$NATS_SERVER" --version 2>&1 | awk '{print $NF}')"

# ---------------------------------------------------------------------------- kustomize
step "kustomize build"
rendered=()
for overlay in "${OVERLAYS[@]}"; do
  name="$(basename "$overlay")"
  out="$WORK/$name.yaml"
  if "${KUSTOMIZE[@]}" "$ROOT/deploy/k8s/$overlay" >"$out" 2>"$WORK/$name.err"; then
    rendered+=("$name=$out")
    ok "deploy/k8s/$overlay: $(grep -c '^kind:' "$out") objects"
  else
    cat "$WORK/$name.err"
    bad "deploy/k8s/$overlay does not build"
    record_failure "kustomize $overlay"
  fi
done

# ------------------------------------------------------------------ Kubernetes schemas
step "Kubernetes schemas, strict (kubernetes-validate; versions $K8S_VERSIONS)"
for item in "${rendered[@]}"; do
  name="${item%%=*}"
  file="${item#*=}"
  for version in $K8S_VERSIONS; do
    # Strict: unknown fields fail. A kind without a schema is only a warning in
    # kubernetes-validate; here it fails too (a typo'd apiVersion, a removed API).
    if "$KV" --kubernetes-version "$version" --strict "$file" >"$WORK/kv.out" 2>&1 &&
      ! grep -qE '^(WARN|ERROR|FATAL)' "$WORK/kv.out"; then
      ok "$name against $version: $(grep -c '^INFO' "$WORK/kv.out") objects valid"
    else
      grep -E '^(WARN|ERROR|FATAL)|Error' "$WORK/kv.out" | sed 's/^/    /' | head -40
      bad "$name against Kubernetes $version"
      record_failure "schema $name@$version"
    fi
  done
done

# ---------------------------------------------------------------------------- compose
step "docker-compose.yml (Compose Specification schema and model consistency)"
# A clean environment: the documented defaults are what is validated, not whatever
# this shell happens to export.
if "$COMPOSECHECK" -env GFTS_VALIDATE=1 "$ROOT/docker-compose.yml" >"$WORK/compose.out" 2>&1; then
  ok "$(sed "s#$ROOT/##" "$WORK/compose.out")"
else
  sed 's/^/    /' "$WORK/compose.out"
  bad "docker-compose.yml"
  record_failure "compose"
fi

# ------------------------------------------------------------------------------- NATS
step "NATS server configuration (nats-server -t)"
for conf in "$ROOT"/deploy/k8s/overlays/*/nats.conf "$ROOT"/deploy/compose/nats.conf; do
  rel="${conf#"$ROOT"/}"
  # $POD_NAME is set by the StatefulSet from the pod name; the users' passwords
  # ($NATS_*_PASSWORD in the included nats-auth.conf) come from a Secret: placeholders.
  password_env=()
  for var in $(grep -ohE '\$NATS_[A-Z0-9_]+_PASSWORD' "$(dirname "$conf")/nats-auth.conf" 2>/dev/null | tr -d '$' | sort -u); do
    password_env+=("$var=validate-placeholder")
  done
  if env POD_NAME=nats-0 "${password_env[@]}" "$NATS_SERVER" -t -c "$conf" >"$WORK/nats.out" 2>&1; then
    ok "$rel"
  else
    sed 's/^/    /' "$WORK/nats.out"
    bad "$rel"
    record_failure "nats $rel"
  fi
done

# ------------------------------------------------------------------------------ policy
step "policy and consistency checks (deploy/tools/check_deploy.py)"
policy_args=()
for item in "${rendered[@]}"; do
  case "$item" in dev=* | prod=*) policy_args+=(--rendered "$item") ;; esac
done
if "$PY" "$ROOT/deploy/tools/check_deploy.py" --repo "$ROOT" --compose "$ROOT/docker-compose.yml" "${policy_args[@]}"; then
  ok "policy"
else
  bad "policy and consistency checks"
  record_failure "policy"
fi

# ----------------------------------------------------------------------------- summary
elapsed=$((SECONDS - started))
if [ ${#failed_steps[@]} -eq 0 ]; then
  printf 'validate-deploy: OK: %d overlays rendered, schema-valid for Kubernetes %s, compose, NATS config and policy checks passed in %ss\n' \
    "${#rendered[@]}" "${K8S_VERSIONS// /, }" "$elapsed"
  exit 0
fi
joined="$(printf '%s, ' "${failed_steps[@]}")"
printf 'validate-deploy: FAILED: %s (%ss)\n' "${joined%, }" "$elapsed"
exit 1
