#!/usr/bin/env bash
# Validates the deployment files offline: the Helm chart (deploy/helm/gfts), Compose,
# NATS configuration, the monitoring files, Dockerfiles and the cross-file policy checks.
# No cluster, no Docker engine and no network beyond the package registries (PyPI, the Go
# module proxy).
#
#   bash scripts/validate-deploy.sh
#
# Steps:
#   1. tools, installed once per version into $GFTS_CACHE (default ~/.cache/gamer-services):
#        helm            go install helm.sh/helm/v3/cmd/helm (pinned below; a few minutes
#                        on a new machine, then cached)
#        kubernetes-validate  from PyPI, in a venv; ships the Kubernetes JSON schemas
#        composecheck    deploy/tools/composecheck, built on compose-spec/compose-go
#                        (the library `docker compose` uses; it embeds the Compose
#                        Specification JSON schema)
#        monitorcheck    deploy/tools/monitorcheck, built on Prometheus's rulefmt and
#                        PromQL parser (what `promtool check rules` runs) and the
#                        Prometheus Operator's monitoring.coreos.com/v1 types
#        nats-server     scripts/provision.sh's build of it (its version, its cached
#                        binary: built here only when provision has not built it yet)
#   2. helm lint --strict of the chart with its default (trial) values and with
#      values-production.yaml (and an image tag, $PROD_TAG, as CI passes one)
#   3. helm template: default values ("dev"), values-production.yaml with a tag ("prod"), a
#      minimal rendering (no NetworkPolicy, Ingress, HPA or PDB), one with a service
#      added by a values entry alone (it must get every object the others have), one with
#      game servers admitted to NATS (nats.clientIngress, in the NATS NetworkPolicy), one
#      with NATS outside the release (reached through extraEgress), one without the
#      notifications service (nothing may name it), one with large whole
#      numbers as settings (rendered in digits, not 1e+06); and values the chart
#      must refuse at render (a service with a database or NATS and no way to it, the
#      gateway without friendship or tasks,
#      production values without an image tag, nats.clientIngress not a list, an image tag
#      that is a number)
#   4. every rendered Kubernetes object against the Kubernetes schemas, strict (unknown
#      fields fail), for the oldest and the newest Kubernetes version we support
#   5. the Prometheus rules, the Grafana dashboard and the rendered ServiceMonitor and
#      PrometheusRule (monitorcheck), each rendered rule's selectors scoped to the release
#   6. docker-compose.yml: schema, interpolation and model consistency; no variable it
#      reads is one scripts/provision.sh exports (MONGO_IMAGE, NATS_IMAGE are the tests')
#   7. nats-server -t on compose's nats.conf and the chart's (dev and prod renderings),
#      and the chart's NATS image being that nats-server version
#   8. deploy/tools/check_deploy.py: security context, probes, grace periods,
#      references, NetworkPolicy reachability, env vars against the services' config.ts,
#      Dockerfile consistency, compose's memory limits, capabilities and JetStream limits
#      (see that file)
#   9. the settings each rendering gives each service, through the service's own config
#      reader (deploy/tools/settings-check.ts: bounds, patterns, rules between settings;
#      placeholders for what production's Secrets hold); Node and the workspace's
#      packages as scripts/provision.sh installs them
#
# Exit status 0 only when every step passed; the last line is a one-line summary.
# Environment: GFTS_CACHE, GFTS_NATS_VERSION (scripts/provision.sh's), K8S_VERSIONS
# ("1.30.0 1.37.0"), HELM_VERSION, PROD_TAG (the image tag prod renders with),
# KEEP_RENDERED=1 to keep the rendered manifests (their directory is printed).
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;; esac

set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GFTS_CACHE="${GFTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gamer-services}"
BIN="$GFTS_CACHE/bin"
CHART="$ROOT/deploy/helm/gfts"
# v3.22.0 builds with Go 1.26 (the machines' Go); Helm 4 changes the CLI and chart API.
HELM_VERSION="${HELM_VERSION:-v3.22.0}"
KUBERNETES_VALIDATE_VERSION="${KUBERNETES_VALIDATE_VERSION:-1.37.0}"
# 1.30: the oldest version we support (lifecycle.preStop.sleep); 1.37: the newest the
# schema package ships, which catches APIs removed since.
K8S_VERSIONS="${K8S_VERSIONS:-1.30.0 1.37.0}"

# GOTOOLCHAIN auto (Go's default): a Go older than a tool's go.mod fetches the toolchain it
# names from the module proxy instead of refusing (local refused every Go before 1.26.7)
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" CGO_ENABLED=0 GOFLAGS="-buildvcs=false"

# For nats-server: provision's version (GFTS_NATS_VERSION) and its build, into the same
# cached file, so that either one's build serves both. Sourcing only defines functions.
# shellcheck source=provision.sh
. "$ROOT/scripts/provision.sh"
NATS_VERSION="$GFTS_NATS_VERSION"

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

HELM="$BIN/helm-$HELM_VERSION"
if [ ! -x "$HELM" ]; then
  command -v go >/dev/null 2>&1 || die "building helm needs Go (go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION)"
  printf '    building helm %s with go install (once; a few minutes on a new machine) ...\n' "$HELM_VERSION"
  GOBIN="$WORK/gobin" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >"$WORK/helm-install.log" 2>&1 ||
    { tail -20 "$WORK/helm-install.log"; die "could not build helm $HELM_VERSION"; }
  mv "$WORK/gobin/helm" "$HELM"
fi
ok "helm $HELM_VERSION"

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

# A Go tool of deploy/tools, built once per version of its sources into $BIN/<name>-<key>;
# prints the binary's path (everything else to stderr: callers capture stdout).
go_tool() {
  local name="$1" what="$2" src="$ROOT/deploy/tools/$1" key bin
  key="$(cat "$src/go.mod" "$src/go.sum" "$src"/*.go | cksum | cut -d' ' -f1)"
  bin="$BIN/$name-$key"
  if [ ! -x "$bin" ]; then
    command -v go >/dev/null 2>&1 || die "building $name needs Go" >&2
    printf '    building %s (%s) with go build (once) ...\n' "$name" "$what" >&2
    (cd "$src" && go build -trimpath -o "$bin" .) >"$WORK/$name-build.log" 2>&1 ||
      { tail -20 "$WORK/$name-build.log" >&2; die "could not build deploy/tools/$name" >&2; }
  fi
  printf '%s\n' "$bin"
}

COMPOSECHECK="$(go_tool composecheck 'compose-spec/compose-go')" || exit 1
ok "composecheck ($(grep -m1 'compose-spec/compose-go' "$ROOT/deploy/tools/composecheck/go.mod" | awk '{print $NF}'))"
MONITORCHECK="$(go_tool monitorcheck 'Prometheus rulefmt and PromQL parser; a minute or two')" || exit 1
ok "monitorcheck ($(grep -m1 'prometheus/prometheus ' "$ROOT/deploy/tools/monitorcheck/go.mod" | awk '{print $NF}'))"

# scripts/provision.sh's binary ($GFTS_CACHE/bin/nats-server-<version>-<recipe hash>), built
# by provision's own function when missing, so a new machine builds it once for both.
NATS_SERVER="$BIN/nats-server-$NATS_VERSION-$(_gfts_recipe nats)"
if [ ! -x "$NATS_SERVER" ]; then
  command -v go >/dev/null 2>&1 || die "building nats-server needs Go"
  printf '    building nats-server %s with go install, as scripts/provision.sh does (once; about a minute) ...\n' "$NATS_VERSION"
  _gfts_go_binary nats-server "$NATS_VERSION" nats >"$WORK/nats-install.log" 2>&1 ||
    { tail -20 "$WORK/nats-install.log"; die "could not build nats-server $NATS_VERSION"; }
  [ -x "$NATS_SERVER" ] || die "scripts/provision.sh built no $NATS_SERVER"
fi
ok "nats-server $("$NATS_SERVER" --version 2>&1 | awk '{print $NF}')"

# ------------------------------------------------------------------------------- helm
# The tag CI passes on every production upgrade (the chart refuses to render prod without one).
PROD_TAG="${PROD_TAG:-1.0.0-validate}"

step "helm lint --strict (default and production values)"
for values in default production; do
  args=()
  [ "$values" = production ] && args=(-f "$CHART/values-production.yaml" --set-string "image.tag=$PROD_TAG")
  if "$HELM" lint --strict "$CHART" ${args[@]+"${args[@]}"} >"$WORK/lint.out" 2>&1; then
    ok "$values values"
  else
    sed 's/^/    /' "$WORK/lint.out"
    bad "helm lint, $values values"
    record_failure "lint $values"
  fi
done

# The tables below: one entry a string of fields separated by "|", each field one argument
# as it is (spaces included); @CHART@ in a field is the chart's directory. split_entry
# puts an entry's fields into the array `fields`: the checkout's path may hold spaces,
# which a split on blanks would break into several arguments.
split_entry() {
  local raw f
  IFS='|' read -r -a raw <<<"$1"
  fields=()
  for f in "${raw[@]}"; do fields+=("${f//@CHART@/"$CHART"}"); done
}

step "helm template"
rendered=()
# name|extra helm arguments...
renderings=(
  "dev"
  "prod|-f|@CHART@/values-production.yaml|--set-string|image.tag=$PROD_TAG"
  "minimal|--set|networkPolicy.enabled=false,ingress.enabled=false,serviceDefaults.autoscaling.enabled=false,serviceDefaults.podDisruptionBudget.enabled=false"
  # A service added by a values entry alone (the chart has no per-service template); its down alert too.
  "added-service|--set|services.sample.port=8090,services.sample.image.repository=gfts/sample,services.sample.nats=true,services.sample.mongodb=true,prometheusRule.enabled=true"
  # Game servers in the cluster admitted to NATS's client port (nats.clientIngress).
  "game-servers|--set-json|nats.clientIngress=[{\"namespaceSelector\":{\"matchLabels\":{\"kubernetes.io/metadata.name\":\"game-servers\"}},\"podSelector\":{\"matchLabels\":{\"app.kubernetes.io/name\":\"match-server\"}}}]"
  # A service left out: nothing else names it (its alerts neither: the rules are checked against the targets).
  "no-notifications|--set|services.notifications.enabled=false,prometheusRule.enabled=true"
  # Large whole numbers as settings, unquoted (they pass through YAML as floats).
  "large-numbers|--set|services.gateway.env.RATE_LIMIT_MAX=1000000,services.tasks.env.STATS_STREAM_MAX_BYTES=10737418240"
  # NATS outside the release, reached through every service's extraEgress.
  "external-nats|--set|nats.inCluster.enabled=false,nats.url=nats://nats.example:4222|--set-json|serviceDefaults.extraEgress=[{\"to\":[{\"ipBlock\":{\"cidr\":\"10.20.0.0/16\"}}],\"ports\":[{\"protocol\":\"TCP\",\"port\":4222}]}]"
)
for item in "${renderings[@]}"; do
  split_entry "$item"
  name="${fields[0]}"
  extra=("${fields[@]:1}")
  out="$WORK/$name.yaml"
  if "$HELM" template gfts "$CHART" --namespace gfts --kube-version "${K8S_VERSIONS%% *}" ${extra[@]+"${extra[@]}"} >"$out" 2>"$WORK/$name.err"; then
    rendered+=("$name=$out")
    ok "$name: $(grep -c '^kind:' "$out") objects"
    if [ "$name" = added-service ]; then
      if "$PY" -c '
import sys, yaml
want = {"ServiceAccount", "ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Secret", "StatefulSet"}
have = {d["kind"] for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["metadata"].get("labels", {}).get("app.kubernetes.io/name") in ("sample", "sample-db")}
sys.exit(f"missing for the added service: {sorted(want - have)}" if want - have else 0)
' "$out"; then
        ok "a values entry alone gives a service all its objects"
      else
        bad "an added service lacks objects"
        record_failure "added service"
      fi
    fi
    if [ "$name" = no-notifications ]; then
      if "$PY" -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
env = {k: v for d in docs if d["kind"] == "ConfigMap" for k, v in (d.get("data") or {}).items()}
problems = []
if "NOTIFICATIONS_URL" in env: problems.append("the gateway still has NOTIFICATIONS_URL")
erasure = env.get("ERASURE_SERVICES")
if erasure != "tasks,friendship": problems.append("ERASURE_SERVICES is %r" % erasure)
peers = [p for d in docs if d["kind"] == "NetworkPolicy" for rule in (d["spec"].get("egress") or []) + (d["spec"].get("ingress") or []) for p in (rule.get("to") or []) + (rule.get("from") or [])]
if any((p.get("podSelector") or {}).get("matchLabels", {}).get("app.kubernetes.io/name") == "notifications" for p in peers): problems.append("a NetworkPolicy still names notifications")
sys.exit("; ".join(problems) or 0)
' "$out"; then
        ok "a service left out is named nowhere (URL, erasure jobs, NetworkPolicy)"
      else
        bad "a service left out is still referred to"
        record_failure "service left out"
      fi
    fi
    if [ "$name" = large-numbers ]; then
      if "$PY" -c '
import sys, yaml
env = {k: v for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "ConfigMap" for k, v in (d.get("data") or {}).items()}
got = (env.get("RATE_LIMIT_MAX"), env.get("STATS_STREAM_MAX_BYTES"))
sys.exit(0 if got == ("1000000", "10737418240") else f"whole numbers not rendered in digits: {got}")
' "$out"; then
        ok "whole numbers in settings render as digits (the services refuse 1e+06)"
      else
        bad "a whole-number setting renders in e-notation"
        record_failure "large numbers"
      fi
    fi
    if [ "$name" = game-servers ]; then
      if "$PY" -c '
import sys, yaml
peer = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "game-servers"}}, "podSelector": {"matchLabels": {"app.kubernetes.io/name": "match-server"}}}
nats = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "NetworkPolicy" and d["metadata"]["labels"].get("app.kubernetes.io/name") == "nats"]
rules = [r for p in nats for r in p["spec"].get("ingress") or [] if peer in (r.get("from") or [])]
sys.exit(0 if len(rules) == 1 and [p["port"] for p in rules[0]["ports"]] == [4222] else f"the peer of nats.clientIngress is not admitted to 4222 alone: {rules}")
' "$out"; then
        ok "nats.clientIngress admits its peers to the NATS servers on 4222"
      else
        bad "nats.clientIngress not rendered into the NATS NetworkPolicy"
        record_failure "nats clientIngress"
      fi
    fi
  else
    sed 's/^/    /' "$WORK/$name.err"
    bad "helm template ($name) fails"
    record_failure "template $name"
  fi
done

# Values the chart must refuse at render, with a message naming the fix.
# name|extra helm arguments...|text the error must contain
refusals=(
  "no-database-egress|--set|trial.mongodb.enabled=false|databaseEgress is empty"
  # The same for NATS outside the release: no rule to it was rendered, and nothing failed.
  "no-nats-egress|--set|nats.inCluster.enabled=false,nats.url=nats://nats.example:4222|nats.inCluster.enabled is false and services.friendship.extraEgress is empty"
  # A configuration-only upgrade without the tag would roll every service to appVersion.
  "prod-without-image-tag|-f|@CHART@/values-production.yaml|image.tag (or services.friendship.image.tag) is required"
  # A per-service tag covers that service only.
  "prod-one-service-tag|-f|@CHART@/values-production.yaml|--set|services.friendship.image.tag=1.0.0|image.tag (or services.gateway.image.tag) is required"
  # nats.clientIngress is a list of NetworkPolicy peers, not one.
  "client-ingress-not-a-list|--set|nats.clientIngress.namespaceSelector.matchLabels.team=games|/nats/clientIngress.: got object, want array"
  # An image tag is a string: Helm renders a number from a values file as a float
  # (tag: 20261127 as 2.0261127e+07); --set makes an all-digit tag a number too.
  # The gateway routes to friendship and tasks: leaving either out would crash-loop it.
  "gateway-without-tasks|--set|services.tasks.enabled=false|services.tasks.enabled is false, but the gateway routes to it"
  "image-tag-a-number|--set-json|image.tag=20261127|/image/tag.: got number, want string"
  "service-image-tag-a-number|--set|services.tasks.image.tag=20261127|/services/tasks/image/tag.: got number, want string"
  # A trial database's StatefulSet name over 52 characters: its pods' hash label would be
  # over 63, and they would never be created (the service crash-looping on MONGO_URL).
  "trial-db-name-too-long|--set|fullnameOverride=a-release-name-of-forty-characters-xxxxx|is over 52 characters"
)
for item in "${refusals[@]}"; do
  split_entry "$item"
  name="${fields[0]}"
  expected="${fields[${#fields[@]}-1]}"
  extra=("${fields[@]:1:${#fields[@]}-2}")
  if "$HELM" template gfts "$CHART" --namespace gfts --kube-version "${K8S_VERSIONS%% *}" ${extra[@]+"${extra[@]}"} >/dev/null 2>"$WORK/$name.err"; then
    bad "helm template ($name) renders; it must be refused"
    record_failure "refusal $name"
  elif grep -q "$expected" "$WORK/$name.err"; then
    ok "$name: refused ($expected)"
  else
    sed 's/^/    /' "$WORK/$name.err"
    bad "helm template ($name) fails, but not for the reason expected ($expected)"
    record_failure "refusal $name"
  fi
done

# ------------------------------------------------------------------ Kubernetes schemas
step "Kubernetes schemas, strict (kubernetes-validate; versions $K8S_VERSIONS)"
for item in "${rendered[@]}"; do
  name="${item%%=*}"
  file="${item#*=}"
  # The Prometheus Operator's kinds have no schema here; monitorcheck checks them (step 5).
  "$PY" -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d.get("apiVersion") != "monitoring.coreos.com/v1"]
yaml.safe_dump_all(docs, open(sys.argv[2], "w"), sort_keys=False)
' "$file" "$WORK/$name.core.yaml" || { bad "cannot split $name"; record_failure "split $name"; continue; }
  for version in $K8S_VERSIONS; do
    # Strict: unknown fields fail. A kind without a schema is only a warning in
    # kubernetes-validate; here it fails too (a typo'd apiVersion, a removed API).
    if "$KV" --kubernetes-version "$version" --strict "$WORK/$name.core.yaml" >"$WORK/kv.out" 2>&1 &&
      ! grep -qE '^(WARN|ERROR|FATAL)' "$WORK/kv.out"; then
      ok "$name against $version: $(grep -c '^INFO' "$WORK/kv.out") objects valid"
    else
      grep -E '^(WARN|ERROR|FATAL)|Error' "$WORK/kv.out" | sed 's/^/    /' | head -40
      bad "$name against Kubernetes $version"
      record_failure "schema $name@$version"
    fi
  done
done

# ---------------------------------------------------------------------------- monitoring
step "Prometheus rules, Grafana dashboard, ServiceMonitor and PrometheusRule (monitorcheck)"
monitor_files=()
for item in "${rendered[@]}"; do monitor_files+=("${item#*=}"); done
# The rule file is a Helm template (tpl) that stays a valid rule file; -namespace: every
# selector of the rendered PrometheusRule must be scoped to the release (its namespace and
# its jobs), not match another release's targets.
if "$MONITORCHECK" -rules "$CHART/files/prometheus-rules.yaml,$CHART/files/prometheus-rules-nats.yaml" -dashboard "$CHART/files/grafana-dashboard.json" \
  -namespace gfts ${monitor_files[@]+"${monitor_files[@]}"} >"$WORK/monitor.out" 2>&1; then
  ok "$(sed "s#$WORK/##g; s#$ROOT/##g" "$WORK/monitor.out")"
else
  sed "s/^/    /; s#$WORK/##g; s#$ROOT/##g" "$WORK/monitor.out"
  bad "monitoring files"
  record_failure "monitoring"
fi
# A service added by values alone has its down alert too (gfts.serviceDownRule).
if grep -q 'job="gfts-sample"} == 1)' "$WORK/added-service.yaml" 2>/dev/null; then
  ok "added-service renders the added service's GftsServiceDown rule"
else
  bad "added-service must render a GftsServiceDown rule for the added service (gfts-sample)"
  record_failure "monitoring objects"
fi
# The services' rules and the NATS servers' (prometheus-rules-nats.yaml).
if [ "$(grep -c '^kind: PrometheusRule$' "$WORK/prod.yaml" 2>/dev/null)" = 2 ] && grep -q 'kind: ServiceMonitor' "$WORK/prod.yaml"; then
  ok "prod renders the ServiceMonitor and the two PrometheusRules"
else
  bad "prod must render the ServiceMonitor and the two PrometheusRules (services, NATS)"
  record_failure "monitoring objects"
fi

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
# No variable Compose interpolates may be one scripts/provision.sh exports: docs and
# deploy/tools/image-smoke.sh have people source provision.sh, and its MONGO_IMAGE and
# NATS_IMAGE (images without mongosh or wget, or FerretDB and nats-server from scratch)
# would become the compose stores', whose health checks then never pass.
if "$PY" -c '
import re, sys
compose = "".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("#"))
used = set(re.findall(r"(?<!\$)\$\{?([A-Za-z_][A-Za-z0-9_]*)", compose))
exported = set()
for args in re.findall(r"\bexport\s+([^;&|\n]*)", open(sys.argv[2]).read()):
    exported.update(re.findall(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)", args))
shared = sorted(used & exported)
sys.exit(f"docker-compose.yml reads {shared}, which scripts/provision.sh exports: give Compose names of its own (as GFTS_COMPOSE_MONGO_IMAGE)" if shared else 0)
' "$ROOT/docker-compose.yml" "$ROOT/scripts/provision.sh" 2>"$WORK/compose-env.out"; then
  ok "no variable of docker-compose.yml is one scripts/provision.sh exports"
else
  sed 's/^/    /' "$WORK/compose-env.out"
  bad "docker-compose.yml shares variables with scripts/provision.sh"
  record_failure "compose variables"
fi

# ------------------------------------------------------------------------------- NATS
step "NATS server configuration (nats-server -t)"
# compose's files as they are; the chart's as rendered (its ConfigMap's two keys), with
# the StatefulSet's environment (pod.env: Secret keys as placeholders, $(VAR) expanded as
# the kubelet does, which makes the route URLs).
confs=("$ROOT/deploy/compose/nats.conf")
for item in "${rendered[@]}"; do
  case "$item" in dev=* | prod=*) ;; *) continue ;; esac
  name="${item%%=*}"
  mkdir -p "$WORK/nats-$name"
  if "$PY" -c '
import re, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
for d in docs:
    if d["kind"] == "ConfigMap" and "nats.conf" in (d.get("data") or {}):
        for key, text in d["data"].items():
            open(f"{sys.argv[2]}/{key}", "w").write(text)
        break
else:
    sys.exit("no NATS ConfigMap")
env = {}
for d in docs:
    if d["kind"] == "StatefulSet" and d["metadata"].get("labels", {}).get("app.kubernetes.io/name") == "nats":
        for e in d["spec"]["template"]["spec"]["containers"][0].get("env") or []:
            source = e.get("valueFrom") or {}
            if "value" in e:
                env[e["name"]] = re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1), m.group(0)), e["value"])
            elif "secretKeyRef" in source:
                env[e["name"]] = "validatePlaceholder"
open(f"{sys.argv[2]}/pod.env", "w").write("".join(f"{k}={v}\n" for k, v in env.items()))
' "${item#*=}" "$WORK/nats-$name"; then
    confs+=("$WORK/nats-$name/nats.conf")
  else
    bad "chart ($name) renders no NATS configuration"
    record_failure "nats $name"
  fi
done
for conf in "${confs[@]}"; do
  rel="${conf#"$ROOT"/}"
  rel="${rel#"$WORK"/}"
  # $POD_NAME is set by the StatefulSet from the pod name; the users' passwords
  # ($NATS_*_PASSWORD in the included nats-auth.conf) come from a Secret: placeholders;
  # the pod's own variables (the route password and URLs) from pod.env.
  password_env=()
  if [ -f "$(dirname "$conf")/pod.env" ]; then
    while IFS= read -r line; do password_env+=("$line"); done <"$(dirname "$conf")/pod.env"
  fi
  for var in $(grep -ohE '\$NATS_[A-Z0-9_]+_PASSWORD' "$(dirname "$conf")/nats-auth.conf" 2>/dev/null | tr -d '$' | sort -u); do
    password_env+=("$var=validate-placeholder")
  done
  if env POD_NAME=nats-0 ${password_env[@]+"${password_env[@]}"} "$NATS_SERVER" -t -c "$conf" >"$WORK/nats.out" 2>&1; then
    ok "$rel"
  else
    sed 's/^/    /' "$WORK/nats.out"
    bad "$rel"
    record_failure "nats $rel"
  fi
done

# The servers the chart runs are the version tested above (values.yaml pins the image).
for item in "${rendered[@]}"; do
  case "$item" in dev=* | prod=*) ;; *) continue ;; esac
  if grep -qE "^ +image: nats:${NATS_VERSION#v}-alpine$" "${item#*=}"; then
    ok "${item%%=*}: the NATS image is nats-server ${NATS_VERSION#v}, the version tested"
  else
    bad "${item%%=*}: the chart's NATS image ($(grep -oE 'image: nats:[^ ]+' "${item#*=}" | head -1)) is not nats:${NATS_VERSION#v}-alpine, the version tested (nats.inCluster.image.tag)"
    record_failure "nats image ${item%%=*}"
  fi
done

# ------------------------------------------------------------------------------ policy
step "policy and consistency checks (deploy/tools/check_deploy.py)"
policy_args=()
for item in "${rendered[@]}"; do
  case "$item" in dev=* | prod=*) policy_args+=(--rendered "$item") ;; esac
done
if "$PY" "$ROOT/deploy/tools/check_deploy.py" --repo "$ROOT" --compose "$ROOT/docker-compose.yml" --chart "$CHART" ${policy_args[@]+"${policy_args[@]}"}; then
  ok "policy"
else
  bad "policy and consistency checks"
  record_failure "policy"
fi

# The values of the settings, through the services' own config readers (Node and the
# workspace's packages, as scripts/provision.sh installs them): every rendering that renders.
step "settings through the services' config readers (deploy/tools/settings-check.ts)"
if _gfts_node && _gfts_pnpm && _gfts_packages; then
  if node "$ROOT/deploy/tools/settings-check.ts" ${rendered[@]+"${rendered[@]}"}; then
    ok "every service takes the settings of every rendering"
  else
    bad "a service refuses the settings a rendering gives it"
    record_failure "settings"
  fi
else
  bad "Node or the workspace packages could not be installed for the settings check"
  record_failure "settings (setup)"
fi

# ----------------------------------------------------------------------------- summary
elapsed=$((SECONDS - started))
if [ ${#failed_steps[@]} -eq 0 ]; then
  printf 'validate-deploy: OK: chart linted, %d renderings schema-valid for Kubernetes %s, monitoring files, compose, NATS config, settings and policy checks passed in %ss\n' \
    "${#rendered[@]}" "${K8S_VERSIONS// /, }" "$elapsed"
  exit 0
fi
joined="$(printf '%s, ' "${failed_steps[@]}")"
printf 'validate-deploy: FAILED: %s (%ss)\n' "${joined%, }" "$elapsed"
exit 1
