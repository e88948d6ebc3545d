#!/usr/bin/env python3
"""Consistency and policy checks of the deployment files, beyond schema validity.

Run by scripts/validate-deploy.sh after the schemas passed, on the Helm chart rendered
with its default (trial) values as "dev" and with values-production.yaml as "prod":

    check_deploy.py --repo . --compose docker-compose.yml --chart deploy/helm/gfts \
        --rendered dev=/tmp/dev.yaml --rendered prod=/tmp/prod.yaml

The services are the entries of the chart's values.yaml `services` map (name, port,
calls, nats, natsUser, mongodb), so a new service is checked as soon as it has an entry.

What it checks (each failure names the file/resource and the rule):
  * configuration: every environment variable that compose or Kubernetes gives a
    service is one the service reads (parsed from services/<svc>/src/config.ts and the
    shared libs/platform/src/config.ts, plus the OTEL_* variables named in
    libs/platform/src/tracing/settings.ts), and every required one is given;
  * Dockerfiles: the four differ only in service name, role and port (and the gateway's
    blocks marked "admin console"); the pnpm
    version equals package.json's packageManager; each copies the package.json and
    src/ of every workspace package its service depends on at run time; exec-form
    entrypoint; EXPOSE matches the service's port;
  * workloads: non-root, seccomp RuntimeDefault, no privilege escalation, read-only
    root file system, all capabilities dropped, requests and limits, probes, a
    service-account token only where needed, third-party images (NATS, the trial
    MongoDB) pinned to a patch version or digest; the services additionally: /healthz
    liveness, a preStop sleep, terminationGracePeriodSeconds above preStop +
    SHUTDOWN_GRACE_MS, topology spread, no replicas field (the HPA owns it), and an
    HPA, a PDB, a Service and a NetworkPolicy each;
  * references: every ConfigMap named by a pod exists in the rendering; every Secret
    exists in dev, none is rendered in prod (they come from the secret store), and the
    ones prod needs are exactly the documented set;
  * YAML: no mapping repeats a key (most parsers keep the last one silently);
  * network: evaluating the NetworkPolicies for every pair of workloads in the
    namespace gives exactly the intended connections (each service -> the services it
    calls; gateway -> NATS for the shared rate-limit counters; each service -> its own
    database and NATS; NATS <-> NATS), plus DNS for all and ingress only from the
    labelled ingress-controller and monitoring namespaces;
  * NATS: prod runs at least STATS_STREAM_REPLICAS servers with sync_interval: always;
    a cluster's routes authenticate (cluster authorization, and every route URL carries
    that user and the password from a Secret); no ConfigMap holds a password; every
    $NATS_<USER>_PASSWORD of nats-auth.conf is in the server's environment (chart and
    compose), without which it does not start.
  * compose: every container (services and stores) has a memory limit, cap_drop ALL and
    no-new-privileges, and adds back no capability beyond the documented ones (the mongo
    entrypoint's, COMPOSE_CAP_ADD); each service with a database has its own store
    (<name>-db) whose WiredTiger cache (--wiredTigerCacheSizeGB) is at most half its
    limit; NATS's configuration sets JetStream's max_memory_store (at most half the
    container's limit) and max_file_store, and GOMEMLIMIT, if set, is below the limit.
  * streams: the max_bytes of the file-backed streams and buckets the services create
    (every *_STREAM_MAX_BYTES and *_BUCKET_MAX_BYTES setting, given or its config.ts
    default, counted once however many services set it) add up to at most the NATS
    servers' max_file_store (compose's nats.conf, each rendering's), which nats-server
    needs to create them; a setting several services share has one value in all.
  * live channel: the gateway's LIVE_IDLE_TIMEOUT_MS is at least twice the notifications
    service's NOTIFY_HEARTBEAT_MS (compose and every rendering with both).
  * runbooks: every alert of every rendered PrometheusRule links a section of
    docs/operations.md that exists (`docs/operations.md#<anchor>`, the anchor as GitHub
    makes it from the heading).
  * monitoring selection: prod's ServiceMonitor and PrometheusRules carry a label of their
    own beyond the chart's (serviceMonitor.labels, prometheusRule.labels), the one a
    Prometheus selects them by; without one a default kube-prometheus-stack ignores them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Iterable

import yaml

# Filled from the chart's values (load_services): name -> port, and each entry as merged
# over serviceDefaults.
SERVICES: dict[str, int] = {}
SERVICE_VALUES: dict[str, dict[str, Any]] = {}
# Secrets prod expects from the secret store, with their keys (values-production.yaml
# names them; docs/operations.md documents them).
EXTERNAL_SECRETS: dict[str, set[str]] = {}
# The intended in-namespace connections: (from, to, port), by component name.
INTENDED: dict[str, set[tuple[str, str, int]]] = {"common": set(), "dev": set(), "prod": set()}

failures: list[str] = []
passes = 0


def fail(where: str, message: str) -> None:
    failures.append(f"{where}: {message}")


def ok(condition: bool, where: str, message: str) -> bool:
    global passes
    if condition:
        passes += 1
    else:
        fail(where, message)
    return condition


# --------------------------------------------------------------------------- the chart


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in (over or {}).items():
        out[key] = deep_merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def load_services(chart: Path) -> None:
    """The services, the intended connections and prod's Secrets, from the chart's values."""
    values = yaml.safe_load((chart / "values.yaml").read_text())
    prod = deep_merge(values, yaml.safe_load((chart / "values-production.yaml").read_text()))
    for name, entry in values["services"].items():
        svc = deep_merge(values["serviceDefaults"], entry)
        if not svc.get("enabled", True):
            continue
        SERVICES[name] = int(svc["port"])
        SERVICE_VALUES[name] = svc
    for name, svc in SERVICE_VALUES.items():
        for callee in svc.get("calls") or []:
            INTENDED["common"].add((name, callee, SERVICES[callee]))
        if svc.get("nats"):
            INTENDED["common"].add((name, "nats", 4222))
        if svc.get("mongodb"):
            INTENDED["dev"].add((name, f"{name}-db", 27017))
    INTENDED["common"].add(("nats", "nats", 6222))
    EXTERNAL_SECRETS[prod["internalSecret"]["name"]] = {prod["internalSecret"]["key"]}
    for name in SERVICE_VALUES:
        svc = deep_merge(prod["serviceDefaults"], prod["services"][name])
        keys = {"MONGO_URL"} if svc.get("mongodb") else set()
        if svc.get("natsUser"):
            keys.add("NATS_PASSWORD")
        if name == "gateway":
            keys.add("JWT_PUBLIC_KEY")
        EXTERNAL_SECRETS[svc["secretName"]] = keys
    # read by the NATS server, not by a service: the services' users and every other
    # password the chart's nats-auth.conf references (game servers, the operators' users)
    EXTERNAL_SECRETS[prod["nats"]["inCluster"]["usersSecret"]] = {
        "NATS_" + re.sub(r"[^A-Z0-9]", "_", svc["natsUser"].upper()) + "_PASSWORD" for svc in SERVICE_VALUES.values() if svc.get("natsUser")
    } | set(re.findall(r"\$(NATS_[A-Z0-9_]+_PASSWORD)\b", (chart / "files" / "nats-auth.conf").read_text()))
    if int(prod["nats"]["inCluster"]["replicas"]) > 1:
        # the cluster routes' password, read by the NATS servers
        EXTERNAL_SECRETS[prod["nats"]["inCluster"]["routeSecret"]] = {"NATS_ROUTE_PASSWORD"}


class UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a mapping with a repeated key."""


def _unique_mapping(loader: UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"repeated key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


# --------------------------------------------------------------------------- config.ts


def _property_texts(block: str) -> dict[str, str]:
    """NAME -> its TypeBox declaration (`Type.Integer({...})`, joined onto one line), from the
    body of a TypeBox properties object."""
    props: dict[str, str] = {}
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"\s*([A-Z][A-Z0-9_]*):\s*(Type\..*)$", lines[i])
        if not m:
            i += 1
            continue
        text = m.group(2)
        while text.count("(") > text.count(")") and i + 1 < len(lines):
            i += 1
            text += lines[i]
        props[m.group(1)] = text
        i += 1
    return props


def _properties(block: str) -> dict[str, bool]:
    """NAME -> required, from the body of a TypeBox properties object."""
    return {name: not text.startswith("Type.Optional(") and "default:" not in text for name, text in _property_texts(block).items()}


def _object_literal(source: str, start: int) -> str:
    depth, i = 0, source.index("{", start)
    for j in range(i, len(source)):
        if source[j] == "{":
            depth += 1
        elif source[j] == "}":
            depth -= 1
            if depth == 0:
                return source[i + 1 : j]
    raise ValueError("unbalanced braces")


def service_declarations(repo: Path, service: str) -> dict[str, str] | None:
    """The settings a service declares in its config.ts, with those of the shared groups it
    spreads from libs/platform/src/config.ts (name -> TypeBox declaration), or None if unknown."""
    path = repo / "services" / service / "src" / "config.ts"
    if not path.exists():
        return None
    source = path.read_text()
    m = re.search(r"const\s+\w+Settings\s*=\s*", source)
    if not m:
        return None
    block = _object_literal(source, m.end())
    declared = _property_texts(block)
    platform = (repo / "libs" / "platform" / "src" / "config.ts").read_text()
    # shared groups, and the groups they spread in turn
    spreads = re.findall(r"\.\.\.(\w+Config)\b", block)
    seen: set[str] = set()
    while spreads:
        shared = spreads.pop()
        if shared in seen:
            continue
        seen.add(shared)
        sm = re.search(rf"export const {shared}\s*=\s*", platform)
        if sm:
            group = _object_literal(platform, sm.end())
            declared.update(_property_texts(group))
            spreads.extend(re.findall(r"\.\.\.(\w+Config)\b", group))
        else:
            fail(str(path), f"spreads {shared}, not found in libs/platform/src/config.ts")
    return declared


def service_settings(repo: Path, service: str) -> dict[str, bool] | None:
    """The environment variables a service reads (name -> required), or None if unknown."""
    declared = service_declarations(repo, service)
    if declared is None:
        return None
    settings = {name: not text.startswith("Type.Optional(") and "default:" not in text for name, text in declared.items()}
    # the standard OpenTelemetry variables the tracing register module honours (all optional)
    tracing = repo / "libs" / "platform" / "src" / "tracing" / "settings.ts"
    if tracing.exists():
        settings.update({name: False for name in re.findall(r"\bOTEL_[A-Z0-9_]*[A-Z0-9]\b", tracing.read_text())})
    # read by Node itself (the heap size the chart gives the tasks service, docs/deploy.md "Memory")
    settings["NODE_OPTIONS"] = False
    return settings


def check_env(where: str, service: str, keys: set[str], settings: dict[str, bool] | None) -> None:
    if settings is None:
        return
    unknown = sorted(keys - set(settings))
    ok(not unknown, where, f"{service} does not read {', '.join(unknown)} (typo or stale setting?)")
    missing = sorted(k for k, required in settings.items() if required and k not in keys)
    ok(not missing, where, f"{service} requires {', '.join(missing)}, which is not given")
    if service == "gateway":
        # The rule of services/gateway/src/config.ts: JWT_SECRET alone, or JWT_PUBLIC_KEY
        # and/or one key set (JWT_JWKS_FILE or JWT_JWKS_URL).
        public = {"JWT_PUBLIC_KEY", "JWT_JWKS_FILE", "JWT_JWKS_URL"} & keys
        if "JWT_SECRET" in keys:
            ok(not public, where, f"gateway takes JWT_SECRET alone, gets it with {sorted(public)}")
        else:
            ok(bool(public), where, "gateway needs JWT_SECRET, or JWT_PUBLIC_KEY and/or JWT_JWKS_FILE or JWT_JWKS_URL, gets none")
        ok(not {"JWT_JWKS_FILE", "JWT_JWKS_URL"} <= keys, where, "gateway takes one of JWT_JWKS_FILE and JWT_JWKS_URL, gets both")


# --------------------------------------------------------------------------- Dockerfiles


def workspace_packages(repo: Path) -> dict[str, Path]:
    found = {}
    for manifest in list(repo.glob("libs/*/package.json")) + list(repo.glob("services/*/package.json")):
        found[json.loads(manifest.read_text())["name"]] = manifest.parent
    return found


def runtime_closure(repo: Path, service: str) -> set[Path]:
    """Workspace directories a service needs at run time (production dependencies)."""
    packages = workspace_packages(repo)
    todo, seen = [repo / "services" / service], set()
    while todo:
        directory = todo.pop()
        if directory in seen:
            continue
        seen.add(directory)
        deps = json.loads((directory / "package.json").read_text()).get("dependencies", {})
        for name, spec in deps.items():
            if str(spec).startswith("workspace:"):
                todo.append(packages[name])
    return {p.relative_to(repo) for p in seen}


def check_dockerfiles(repo: Path) -> None:
    want_pnpm = json.loads((repo / "package.json").read_text())["packageManager"].split("@", 1)[1]
    normalised = {}
    for service, port in SERVICES.items():
        path = repo / "services" / service / "Dockerfile"
        where = str(path.relative_to(repo))
        if not ok(path.exists(), where, "missing"):
            continue
        text = path.read_text()
        if service == "gateway":
            # the admin console it serves: its build stage and its copies, marked as such
            text = re.sub(r"^# --- admin console:.*?^# --- end admin console ---\n(\n(?=\n|#))?", "", text, flags=re.M | re.S)
        role = re.search(rf"service \((.*), port {port}\)", text)
        ok(role is not None, where, f"first comment must read '... {service} service (<role>, port {port})'")
        norm = text.replace(role.group(1), "@ROLE@") if role else text
        normalised[service] = norm.replace(service, "@SERVICE@").replace(str(port), "@PORT@")
        m = re.search(r"^ARG PNPM_VERSION=(\S+)", text, re.M)
        ok(m is not None and m.group(1) == want_pnpm, where, f"ARG PNPM_VERSION must be {want_pnpm} (package.json packageManager)")
        ok(re.search(rf"^EXPOSE {port}$", text, re.M) is not None, where, f"EXPOSE {port} missing")
        entrypoints = re.findall(r"^ENTRYPOINT (.*)$", text, re.M)
        ok(bool(entrypoints) and all(e.startswith("[") for e in entrypoints), where, "ENTRYPOINT must be exec form (JSON array) so node gets SIGTERM")
        ok(re.search(r"^USER 65532:65532$", text, re.M) is not None, where, "runtime stages must run as USER 65532:65532")
        copies = set(re.findall(r"^COPY (?!--from)(\S+)", text, re.M))
        for directory in sorted(runtime_closure(repo, service)):
            for item in (f"{directory}/package.json", f"{directory}/src"):
                ok(item in copies, where, f"does not COPY {item}, which {service} needs at run time")
        ok(f'--filter "@gfts/{service}..."' in text, where, f'pnpm install must be filtered to "@gfts/{service}..."')
    if "gateway" in normalised:
        first = normalised["gateway"]
        for service in sorted(set(normalised) - {"gateway"}):
            ok(normalised[service] == first, f"services/{service}/Dockerfile",
               "differs from services/gateway/Dockerfile beyond the service name, role and port")


# --------------------------------------------------------------------------- compose


# Capabilities a compose container may add back after cap_drop ALL, by kind; any other
# container adds none. The official mongo image's entrypoint needs these before it drops to
# the mongodb user (docker-compose.yml, x-mongo, says which step needs which).
COMPOSE_CAP_ADD = {"mongo": {"SETUID", "SETGID", "DAC_OVERRIDE", "CHOWN"}}

_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def docker_bytes(value: Any) -> int | None:
    """A Compose/Docker memory size ("512m", "1g", "1gb", 1073741824) in bytes (binary
    multiples, as Docker reads them), or None when it is not one."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", str(value), re.I)
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()]) if m else None


def nats_bytes(value: str) -> int | None:
    """A NATS configuration size in bytes, as nats-server reads it: "64MB", "64MiB" and
    "64Mi" are binary, "64M" decimal; a bare number is bytes."""
    m = re.fullmatch(r"(\d+)\s*(?:([kmgt])(b|ib|i)?)?", value.strip().strip('"\''), re.I)
    if not m:
        return None
    if not m.group(2):
        return int(m.group(1))
    power = "kmgt".index(m.group(2).lower()) + 1
    return int(m.group(1)) * (1024 if m.group(3) else 1000) ** power


def go_bytes(value: str) -> int | None:
    """A GOMEMLIMIT value ("900MiB", "1GiB", bytes) in bytes, or None."""
    m = re.fullmatch(r"(\d+)(B|KiB|MiB|GiB|TiB)?", value.strip())
    return int(m.group(1)) * {None: 1, "B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}[m.group(2)] if m else None


def nats_jetstream_settings(text: str) -> dict[str, str] | None:
    """The key/value settings of a NATS configuration's jetstream block, or None without one."""
    text = re.sub(r"(?m)(#|//).*$", "", text)
    m = re.search(r"(?m)^\s*jetstream\s*[:=]?\s*\{", text)
    if not m:
        return None
    depth, start = 0, m.end() - 1
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            body = text[start + 1 : i]
            return {k.lower(): v.strip() for k, v in re.findall(r"(?m)^\s*([A-Za-z_]+)\s*[:=]?\s*(\S[^\n]*?)\s*$", body)}
    return None


def compose_memory_limit(spec: dict[str, Any]) -> int | None:
    return docker_bytes((((spec.get("deploy") or {}).get("resources") or {}).get("limits") or {}).get("memory", ""))


def check_compose_hardening(where: str, name: str, spec: dict[str, Any], kind: str | None) -> None:
    """Memory limit and privileges of one compose container (service or store)."""
    ok(compose_memory_limit(spec) is not None, where, f"{name} needs deploy.resources.limits.memory")
    ok("ALL" in [str(c).upper() for c in spec.get("cap_drop") or []], where, f"{name} must have cap_drop: [ALL]")
    ok(any(re.fullmatch(r"no-new-privileges(:true)?", str(o)) for o in spec.get("security_opt") or []), where,
       f"{name} must have security_opt no-new-privileges:true")
    added = {str(c).upper().removeprefix("CAP_") for c in spec.get("cap_add") or []}
    allowed = COMPOSE_CAP_ADD.get(kind or "", set())
    ok(added <= allowed, where, f"{name} adds capabilities {sorted(added - allowed)} beyond the documented {sorted(allowed)}")


def check_compose_mongo(where: str, name: str, spec: dict[str, Any]) -> None:
    """A store's WiredTiger cache is set and fits its memory limit with room for the rest of mongod."""
    command = [str(a) for a in spec.get("command") or []]
    cache = None
    for i, arg in enumerate(command):
        if arg == "--wiredTigerCacheSizeGB" and i + 1 < len(command):
            cache = command[i + 1]
        elif arg.startswith("--wiredTigerCacheSizeGB="):
            cache = arg.partition("=")[2]
    if not ok(cache is not None and re.fullmatch(r"\d+(\.\d+)?", cache) is not None, where,
              f"{name} must set --wiredTigerCacheSizeGB (mongod otherwise sizes its cache from the RAM it detects, maybe the host's)"):
        return
    limit = compose_memory_limit(spec)
    if limit:
        ok(float(cache) * 1024**3 <= limit / 2, where,
           f"{name}: a WiredTiger cache of {cache} GB does not leave half of the {limit // 1024**2} MiB memory limit to the rest of mongod")


def check_compose_nats(repo: Path, compose_path: Path, where: str, spec: dict[str, Any]) -> int | None:
    """NATS in compose: JetStream's limits in the configuration it loads, fitting the
    container's. Answers its max_file_store in bytes (None when not found)."""
    command = [str(a) for a in spec.get("command") or []]
    conf_target = next((command[i + 1] for i, a in enumerate(command[:-1]) if a in ("--config", "-c")), None)
    source = None
    for volume in spec.get("volumes") or []:
        src, dst = (volume.get("source"), volume.get("target")) if isinstance(volume, dict) else (str(volume).split(":") + [""])[:2]
        if conf_target and dst == conf_target:
            source = (compose_path.parent / src).resolve()
    if not ok(source is not None and source.is_file(), where, f"nats must load a configuration file mounted from the repository (--config {conf_target})"):
        return None
    conf_where = str(source.relative_to(repo)) if source.is_relative_to(repo) else str(source)
    js = nats_jetstream_settings(source.read_text())
    if not ok(js is not None, conf_where, "no jetstream block"):
        return None
    memory_store = next((nats_bytes(js[k]) for k in ("max_memory_store", "max_mem_store", "max_mem") if k in js), None)
    file_store = next((nats_bytes(js[k]) for k in ("max_file_store", "max_file") if k in js), None)
    ok(memory_store is not None, conf_where, "jetstream must set max_memory_store (unset: 75 % of the memory the server detects)")
    ok(file_store is not None, conf_where, "jetstream must set max_file_store (unset: up to 1 TB of disk)")
    limit = compose_memory_limit(spec)
    if limit and memory_store is not None:
        ok(memory_store <= limit / 2, conf_where,
           f"max_memory_store ({memory_store // 1024**2} MiB) must leave the server half of its {limit // 1024**2} MiB memory limit")
    env = spec.get("environment") or {}
    if isinstance(env, dict) and "GOMEMLIMIT" in env and limit:
        gomem = go_bytes(str(env["GOMEMLIMIT"]))
        ok(gomem is not None and gomem < limit, where, f"nats GOMEMLIMIT {env['GOMEMLIMIT']} must be below its memory limit")
    # the users' file beside it: the server refuses to start without a password it references
    auth = source.parent / "nats-auth.conf"
    if auth.is_file() and isinstance(env, dict):
        missing = sorted(set(re.findall(r"\$(NATS_[A-Z0-9_]+_PASSWORD)\b", auth.read_text())) - set(env))
        ok(not missing, where, f"nats-auth.conf reads {missing}, which the nats service's environment does not set")
    return file_store


def check_compose(repo: Path, compose_path: Path, settings: dict[str, dict[str, bool] | None], stream_defaults: dict[str, dict[str, int]]) -> None:
    model = yaml.safe_load(compose_path.read_text())
    where = str(compose_path.relative_to(repo))
    services = model.get("services", {})
    stores = {f"{name}-db" for name, svc in SERVICE_VALUES.items() if svc.get("mongodb")}
    for name in sorted(stores):
        if ok(name in services, where, f"store {name} missing (each service with a database has its own)"):
            check_compose_mongo(where, name, services[name])
    if ok("nats" in services, where, "service nats missing"):
        file_store = check_compose_nats(repo, compose_path, where, services["nats"])
        check_stream_bytes(where, stream_defaults, lambda name: (services.get(name) or {}).get("environment") if name in services else None, file_store)
    for name, spec in services.items():
        check_compose_hardening(where, name, spec, "mongo" if name in stores else None)
    for service, port in SERVICES.items():
        spec = services.get(service)
        if not ok(spec is not None, where, f"service {service} missing"):
            continue
        env = spec.get("environment", {})
        ok(isinstance(env, dict), where, f"{service}.environment must be a mapping")
        check_env(f"{where} services.{service}", service, set(env), settings[service])
        ok(str(env.get("PORT")) == str(port), where, f"{service} PORT must be {port}")
        # as the chart connects it: its own NATS user, whose password the nats service reads
        user = SERVICE_VALUES[service].get("natsUser")
        if user:
            variable = "NATS_" + re.sub(r"[^A-Z0-9]", "_", user.upper()) + "_PASSWORD"
            ok(env.get("NATS_USER") == user, where, f"{service} must connect to NATS as user {user} (NATS_USER), as the chart does")
            ok(variable in str(env.get("NATS_PASSWORD", "")), where, f"{service} NATS_PASSWORD must come from {variable}, the password nats-auth.conf gives user {user}")
        ok(spec.get("build", {}).get("dockerfile") == f"services/{service}/Dockerfile", where, f"{service} must build services/{service}/Dockerfile")
        ok(spec.get("read_only") is True, where, f"{service} must have read_only: true")
        test = " ".join(spec.get("healthcheck", {}).get("test", []))
        ok(f"127.0.0.1:{port}/readyz" in test, where, f"{service} health check must fetch /readyz on {port}")
        grace = spec.get("stop_grace_period", "10s")
        seconds = int(re.fullmatch(r"(\d+)s", grace).group(1)) if re.fullmatch(r"(\d+)s", grace) else 0
        shutdown_ms = int(env.get("SHUTDOWN_GRACE_MS", 10000))
        ok(seconds * 1000 > shutdown_ms, where, f"{service} stop_grace_period {grace} must exceed SHUTDOWN_GRACE_MS {shutdown_ms}")
        for dep, cond in (spec.get("depends_on") or {}).items():
            ok(cond.get("condition") == "service_healthy", where, f"{service} depends_on {dep} must wait for service_healthy")
    published = [s for s, spec in services.items() if spec.get("ports")]
    ok(published == ["gateway"], where, f"only the gateway may publish ports, found {published}")
    env_of = lambda name: (services.get(name) or {}).get("environment") or {}
    check_live_timeouts(where, env_of("gateway").get("LIVE_IDLE_TIMEOUT_MS"), env_of("notifications").get("NOTIFY_HEARTBEAT_MS"))


# The gateway cuts a live pipe its notifications service sent nothing on for
# LIVE_IDLE_TIMEOUT_MS; the service pings each NOTIFY_HEARTBEAT_MS (docs/notifications.md,
# "The gateway's part"). Defaults of the services' config.ts.
LIVE_IDLE_TIMEOUT_DEFAULT_MS = 75_000
NOTIFY_HEARTBEAT_DEFAULT_MS = 30_000


def check_live_timeouts(where: str, idle: Any, heartbeat: Any) -> None:
    """A healthy socket must outlive the cut: at least two heartbeats within the idle timeout."""
    idle_ms = int(idle) if idle is not None else LIVE_IDLE_TIMEOUT_DEFAULT_MS
    heartbeat_ms = int(heartbeat) if heartbeat is not None else NOTIFY_HEARTBEAT_DEFAULT_MS
    ok(idle_ms >= 2 * heartbeat_ms, where, f"gateway LIVE_IDLE_TIMEOUT_MS {idle_ms} must be at least twice notifications NOTIFY_HEARTBEAT_MS {heartbeat_ms}, or healthy live sockets are cut")


# The settings that bound a file-backed JetStream stream or KV bucket a service creates:
# every one named *_STREAM_MAX_BYTES or *_BUCKET_MAX_BYTES (docs/operations.md, "Sizing the
# streams"). nats-server reserves each stream's max_bytes in its store when it creates the
# stream, and refuses one that does not fit: the sum must fit max_file_store.
STREAM_BYTES_SETTING = re.compile(r"^[A-Z0-9_]+_(STREAM|BUCKET)_MAX_BYTES$")


def stream_bytes_defaults(repo: Path) -> dict[str, dict[str, int]]:
    """service -> {setting -> default bytes} for every stream-bounding setting it declares."""
    found: dict[str, dict[str, int]] = {}
    for service in SERVICES:
        for name, text in (service_declarations(repo, service) or {}).items():
            if STREAM_BYTES_SETTING.match(name):
                m = re.search(r"\bdefault:\s*([\d_]+)\s*[,}]", text)
                if ok(m is not None, f"services/{service}/src/config.ts", f"{name} needs a literal default in bytes (check_deploy.py sums them)"):
                    found.setdefault(service, {})[name] = int(m.group(1).replace("_", ""))
    return found


def _size(n: int) -> str:
    return f"{n / 1024**3:g} GiB" if n >= 1024**3 else f"{n / 1024**2:g} MiB"


def check_stream_bytes(where: str, defaults: dict[str, dict[str, int]], env_of, file_store: int | None) -> None:
    """The streams' max_bytes (given, or the services' defaults) add up to at most the NATS
    servers' max_file_store; a stream several services ensure gets one bound from all."""
    if file_store is None:
        return
    bounds: dict[str, dict[str, int]] = {}
    for service, settings in defaults.items():
        env = env_of(service)
        if env is None:
            continue
        for name, default in settings.items():
            value = env.get(name)
            bytes_ = int(value) if value is not None and str(value).isdigit() else default
            ok(value is None or str(value).isdigit(), where, f"{service} {name} must be a whole number of bytes, is {value!r}")
            bounds.setdefault(name, {})[service] = bytes_
    for name, by_service in sorted(bounds.items()):
        ok(len(set(by_service.values())) == 1, where,
           f"{name} differs between {', '.join(f'{s} {_size(b)}' for s, b in sorted(by_service.items()))}: each ensures the stream and the last to start sets it")
    total = sum(max(v.values()) for v in bounds.values())
    parts = ", ".join(f"{name} {_size(max(v.values()))}" for name, v in sorted(bounds.items()))
    ok(total <= file_store, where,
       f"the streams' max_bytes add up to {_size(total)} ({parts}), over JetStream's max_file_store of {_size(file_store)} per NATS server: "
       "nats-server reserves each stream's max_bytes and would refuse the last ones created")


# --------------------------------------------------------------------------- Kubernetes


def load_rendered(path: Path) -> list[dict[str, Any]]:
    try:
        return [d for d in yaml.load_all(path.read_text(), Loader=UniqueKeyLoader) if d]
    except yaml.YAMLError as error:
        fail(str(path), f"not loadable YAML: {error}")
        return [d for d in yaml.safe_load_all(path.read_text()) if d]


def index(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def component(d: dict[str, Any]) -> str:
    """The component an object belongs to: its app.kubernetes.io/name label (gateway, nats, tasks-db)."""
    return ((d.get("metadata") or {}).get("labels") or {}).get("app.kubernetes.io/name", d["metadata"]["name"])


def find_generated(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any] | None:
    """The first object of a kind that belongs to a component."""
    for d in docs:
        if d["kind"] == kind and component(d) == name:
            return d
    return None


def selector_matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def workloads(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]


def pod_env_keys(env_name: str, docs, workload) -> tuple[set[str], list[str]]:
    """Variables a container gets from the rendering; plus external Secrets it needs."""
    keys: set[str] = set()
    external: list[str] = []
    container = workload["spec"]["template"]["spec"]["containers"][0]
    for item in container.get("env") or []:
        keys.add(item["name"])
    for source in container.get("envFrom") or []:
        if "configMapRef" in source:
            cm = next((d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == source["configMapRef"]["name"]), None)
            if cm:
                keys |= set(cm.get("data", {}))
        if "secretRef" in source:
            name = source["secretRef"]["name"]
            secret = next((d for d in docs if d["kind"] == "Secret" and d["metadata"]["name"] == name), None)
            if secret:
                keys |= set(secret.get("data", {})) | set(secret.get("stringData", {}))
            else:
                external.append(name)
                keys |= EXTERNAL_SECRETS.get(name, set())
    return keys, external


def rendered_env(docs, service: str) -> dict[str, str] | None:
    """The plain settings (env values and ConfigMap keys) a service's Deployment gets, or None without one."""
    workload = find_generated(docs, "Deployment", service)
    if workload is None:
        return None
    container = workload["spec"]["template"]["spec"]["containers"][0]
    env: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        if "configMapRef" in source:
            cm = next((d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == source["configMapRef"]["name"]), None)
            env.update({k: str(v) for k, v in ((cm or {}).get("data") or {}).items()})
    env.update({item["name"]: str(item["value"]) for item in container.get("env") or [] if "value" in item})
    return env


def rendered_file_store(docs) -> int | None:
    """max_file_store of the rendered NATS configuration, in bytes; None without one (NATS outside the chart)."""
    conf = next((d for d in docs if d["kind"] == "ConfigMap" and component(d) == "nats" and "nats.conf" in (d.get("data") or {})), None)
    js = nats_jetstream_settings(conf["data"]["nats.conf"]) if conf else None
    value = next((js[k] for k in ("max_file_store", "max_file") if k in js), None) if js else None
    return nats_bytes(value) if value is not None else None


def config_value(docs, workload, key: str) -> str | None:
    container = workload["spec"]["template"]["spec"]["containers"][0]
    for item in container.get("env") or []:
        if item["name"] == key and "value" in item:
            return item["value"]
    for source in container.get("envFrom") or []:
        if "configMapRef" in source:
            cm = next((d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == source["configMapRef"]["name"]), None)
            if cm and key in cm.get("data", {}):
                return cm["data"][key]
    return None


def check_workload_security(env_name: str, w: dict[str, Any]) -> None:
    where = f"{env_name} {w['kind']}/{w['metadata']['name']}"
    pod = w["spec"]["template"]["spec"]
    psc = pod.get("securityContext") or {}
    ok(psc.get("runAsNonRoot") is True, where, "pod securityContext.runAsNonRoot must be true")
    ok(isinstance(psc.get("runAsUser"), int) and psc["runAsUser"] > 0, where, "pod securityContext.runAsUser must be a non-zero uid")
    ok((psc.get("seccompProfile") or {}).get("type") == "RuntimeDefault", where, "seccompProfile must be RuntimeDefault")
    ok(pod.get("automountServiceAccountToken") is False, where, "automountServiceAccountToken must be false")
    keys = [c["topologyKey"] for c in pod.get("topologySpreadConstraints") or []]
    ok(len(keys) == len(set(keys)), where, f"topologySpreadConstraints repeat a topologyKey: {keys}")
    for c in pod["containers"]:
        cw = f"{where} container {c['name']}"
        sc = c.get("securityContext") or {}
        ok(sc.get("allowPrivilegeEscalation") is False, cw, "allowPrivilegeEscalation must be false")
        ok(sc.get("readOnlyRootFilesystem") is True, cw, "readOnlyRootFilesystem must be true")
        ok("ALL" in ((sc.get("capabilities") or {}).get("drop") or []), cw, "capabilities.drop must contain ALL")
        ok(not sc.get("privileged"), cw, "must not be privileged")
        res = c.get("resources") or {}
        for field in ("cpu", "memory"):
            ok(field in (res.get("requests") or {}), cw, f"resources.requests.{field} missing")
        ok("memory" in (res.get("limits") or {}), cw, "resources.limits.memory missing")
        ok("livenessProbe" in c and "readinessProbe" in c, cw, "needs liveness and readiness probes")
        ok(":" in c["image"] or "@" in c["image"], cw, f"image {c['image']} must carry a tag or digest")
        if component(w) not in SERVICES:
            # a third-party image (NATS, the trial MongoDB): a floating tag ("7", "2.11-alpine")
            # changes the server under a running release at its next pod start
            ok(re.search(r":\d+\.\d+\.\d+(-[\w.]+)?$|@sha256:[0-9a-f]{64}$", c["image"]) is not None, cw,
               f"image {c['image']} must be pinned to a patch version (x.y.z) or a digest")


def check_service_workload(env_name: str, docs, w: dict[str, Any], settings: dict[str, bool] | None) -> None:
    name = component(w)
    resource = w["metadata"]["name"]
    where = f"{env_name} Deployment/{resource}"
    pod = w["spec"]["template"]["spec"]
    c = pod["containers"][0]
    has_hpa = any(d["kind"] == "HorizontalPodAutoscaler" and d["spec"]["scaleTargetRef"]["name"] == resource for d in docs)
    ok(("replicas" in w["spec"]) != has_hpa, where, "sets replicas exactly when no HorizontalPodAutoscaler owns the count")
    ok(c["livenessProbe"].get("httpGet", {}).get("path") == "/healthz", where, "liveness probe must be GET /healthz")
    ready = c["readinessProbe"].get("httpGet", {}).get("path")
    ok(ready in ("/readyz", "/healthz"), where, "readiness probe must be GET /readyz (or /healthz for the gateway)")
    if name != "gateway":
        ok(ready == "/readyz", where, "readiness probe must be GET /readyz")
    ports = [p["containerPort"] for p in c.get("ports") or []]
    ok(ports == [SERVICES[name]], where, f"container port must be {SERVICES[name]}, is {ports}")
    ok(config_value(docs, w, "PORT") == str(SERVICES[name]), where, f"PORT must be {SERVICES[name]}")
    sleep = ((c.get("lifecycle") or {}).get("preStop") or {}).get("sleep", {}).get("seconds")
    ok(isinstance(sleep, int) and sleep > 0, where, "needs a preStop sleep so endpoint removal propagates before SIGTERM")
    grace_ms = int(config_value(docs, w, "SHUTDOWN_GRACE_MS") or 10000)
    tgps = pod.get("terminationGracePeriodSeconds", 30)
    ok(tgps * 1000 > (sleep or 0) * 1000 + grace_ms, where,
       f"terminationGracePeriodSeconds {tgps} must exceed preStop {sleep}s + SHUTDOWN_GRACE_MS {grace_ms}ms")
    ok(bool(pod.get("topologySpreadConstraints")), where, "needs topologySpreadConstraints")
    keys, external = pod_env_keys(env_name, docs, w)
    check_env(where, name, keys, settings)
    labels = w["spec"]["template"]["metadata"]["labels"]
    for kind, label in (("HorizontalPodAutoscaler", "HPA"), ("PodDisruptionBudget", "PDB"), ("Service", "Service"), ("NetworkPolicy", "NetworkPolicy")):
        found = [d for d in docs if d["kind"] == kind and (
            (kind == "HorizontalPodAutoscaler" and d["spec"]["scaleTargetRef"]["name"] == resource)
            or (kind == "PodDisruptionBudget" and selector_matches(d["spec"]["selector"], labels))
            or (kind == "Service" and d["spec"].get("selector") and all(labels.get(k) == v for k, v in d["spec"]["selector"].items()))
            or (kind == "NetworkPolicy" and d["spec"]["podSelector"] and selector_matches(d["spec"]["podSelector"], labels)))]
        ok(len(found) >= 1, where, f"no {label} for it")
    hpa = next((d for d in docs if d["kind"] == "HorizontalPodAutoscaler" and d["spec"]["scaleTargetRef"]["name"] == resource), None)
    if hpa:
        ok(hpa["apiVersion"] == "autoscaling/v2", where, "HPA must be autoscaling/v2")
        ok(hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"], where, "HPA minReplicas > maxReplicas")


def check_references(env_name: str, docs) -> None:
    names = {(d["kind"], d["metadata"]["name"]) for d in docs}
    secrets_needed: set[str] = set()
    for w in workloads(docs):
        where = f"{env_name} {w['kind']}/{w['metadata']['name']}"
        pod = w["spec"]["template"]["spec"]
        cms, secrets = set(), set()
        for c in pod["containers"]:
            for s in c.get("envFrom") or []:
                if "configMapRef" in s:
                    cms.add(s["configMapRef"]["name"])
                if "secretRef" in s:
                    secrets.add(s["secretRef"]["name"])
            for e in c.get("env") or []:
                ref = (e.get("valueFrom") or {})
                if "configMapKeyRef" in ref:
                    cms.add(ref["configMapKeyRef"]["name"])
                if "secretKeyRef" in ref:
                    secrets.add(ref["secretKeyRef"]["name"])
        for v in pod.get("volumes") or []:
            if "configMap" in v:
                cms.add(v["configMap"]["name"])
            if "secret" in v:
                secrets.add(v["secret"]["secretName"])
        for cm in cms:
            ok(("ConfigMap", cm) in names, where, f"ConfigMap {cm} is not in the rendering")
        secrets_needed |= secrets
        sa = pod.get("serviceAccountName")
        if sa:
            ok(("ServiceAccount", sa) in names, where, f"ServiceAccount {sa} is not in the rendering")
    rendered_secrets = {d["metadata"]["name"] for d in docs if d["kind"] == "Secret"}
    if env_name == "prod":
        ok(not rendered_secrets, "prod", f"must render no Secret (they come from the secret store), renders {sorted(rendered_secrets)}")
        ok(secrets_needed == set(EXTERNAL_SECRETS), "prod",
           f"needs Secrets {sorted(secrets_needed)}, documented are {sorted(EXTERNAL_SECRETS)}")
    else:
        for s in secrets_needed:
            ok(s in rendered_secrets, env_name, f"Secret {s} is referenced but not generated")


# ----------------------------------------------------------------------- network policy


def named_port(workload, port) -> int | None:
    if isinstance(port, int):
        return port
    for c in workload["spec"]["template"]["spec"]["containers"]:
        for p in c.get("ports") or []:
            if p.get("name") == port:
                return p["containerPort"]
    return None


def port_allowed(ports: list[dict[str, Any]] | None, target, port: int) -> bool:
    if not ports:
        return True  # no ports: every port
    for pp in ports:
        if pp.get("protocol", "TCP") != "TCP":
            continue
        if "port" not in pp:
            return True
        number = named_port(target, pp["port"])
        if number is not None and (number == port or number <= port <= pp.get("endPort", number)):
            return True
    return False


def peer_allows(peer: dict[str, Any], other: dict[str, Any], namespace_labels: dict[str, str]) -> bool:
    """Does a from/to peer select `other` (a workload in the same namespace)?"""
    if "ipBlock" in peer:
        return False
    labels = other["spec"]["template"]["metadata"]["labels"]
    if "namespaceSelector" in peer and not selector_matches(peer["namespaceSelector"], namespace_labels):
        return False
    if "podSelector" in peer:
        return selector_matches(peer["podSelector"], labels)
    return "namespaceSelector" in peer  # a namespace selector alone selects every pod there


def rules_allow(policies, subject, other, port: int, direction: str, namespace_labels) -> bool:
    labels = subject["spec"]["template"]["metadata"]["labels"]
    kind = "Ingress" if direction == "ingress" else "Egress"
    selecting = [p for p in policies if kind in p["spec"].get("policyTypes", ["Ingress"]) and selector_matches(p["spec"]["podSelector"], labels)]
    if not selecting:
        return True  # not isolated in this direction
    target = other if direction == "egress" else subject
    for p in selecting:
        for rule in p["spec"].get(direction) or []:
            peers = rule.get("from" if direction == "ingress" else "to")
            if peers is not None and not any(peer_allows(peer, other, namespace_labels) for peer in peers):
                continue
            if port_allowed(rule.get("ports"), target, port):
                return True
    return False


def check_network(env_name: str, docs) -> None:
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    every_workload = lambda selector: all(selector_matches(selector, w["spec"]["template"]["metadata"]["labels"]) for w in workloads(docs))  # noqa: E731
    deny = [p for p in policies if every_workload(p["spec"]["podSelector"]) and set(p["spec"].get("policyTypes", [])) == {"Ingress", "Egress"}
            and not p["spec"].get("ingress") and not p["spec"].get("egress")]
    ok(bool(deny), env_name, "needs a default-deny NetworkPolicy (selecting every workload, Ingress and Egress, no rules)")
    ns = next((d for d in docs if d["kind"] == "Namespace"), None)
    ns_name = ns["metadata"]["name"] if ns else "default"
    ns_labels = {**((ns or {}).get("metadata", {}).get("labels") or {}), "kubernetes.io/metadata.name": ns_name}
    pods = {component(w): w for w in workloads(docs)}
    intended = INTENDED["common"] | INTENDED[env_name]
    ports = sorted({p for _, _, p in INTENDED["common"] | INTENDED["dev"]} | {8222})
    allowed = set()
    for src_name, src in pods.items():
        for dst_name, dst in pods.items():
            for port in ports:
                served = any(p["containerPort"] == port for c in dst["spec"]["template"]["spec"]["containers"] for p in c.get("ports") or [])
                if not served:
                    continue
                if rules_allow(policies, src, dst, port, "egress", ns_labels) and rules_allow(policies, dst, src, port, "ingress", ns_labels):
                    allowed.add((src_name, dst_name, port))
    intended_here = {(a, b, p) for a, b, p in intended if a in pods and b in pods}
    for extra in sorted(allowed - intended_here):
        fail(f"{env_name} NetworkPolicy", f"allows {extra[0]} -> {extra[1]}:{extra[2]}, which is not intended")
    for missing in sorted(intended_here - allowed):
        fail(f"{env_name} NetworkPolicy", f"blocks {missing[0]} -> {missing[1]}:{missing[2]}, which is needed")
    global passes
    passes += 1
    # Out of the namespace: DNS for everyone, nothing else but prod's database rule.
    dns = [p for p in policies if every_workload(p["spec"]["podSelector"]) and any(
        any(pp.get("port") == 53 for pp in r.get("ports") or []) for r in p["spec"].get("egress") or [])]
    ok(bool(dns), env_name, "needs a DNS egress NetworkPolicy for all pods")
    # In from outside the namespace: only the labelled ingress-controller and monitoring namespaces.
    for p in policies:
        for rule in p["spec"].get("ingress") or []:
            for peer in rule.get("from") or []:
                if "namespaceSelector" in peer:
                    keys = set((peer["namespaceSelector"].get("matchLabels") or {}))
                    keys |= {e["key"] for e in peer["namespaceSelector"].get("matchExpressions") or []}
                    ok(bool(keys) and keys <= {"gfts.io/ingress-controller", "gfts.io/monitoring"}, f"{env_name} NetworkPolicy/{p['metadata']['name']}",
                       f"ingress from namespaces selected by {sorted(keys)}; only gfts.io/ingress-controller or gfts.io/monitoring are intended")
    gateway_labels = pods["gateway"]["spec"]["template"]["metadata"]["labels"] if "gateway" in pods else {}
    gateway_from_outside = [r for p in policies if selector_matches(p["spec"]["podSelector"], gateway_labels)
                            for r in p["spec"].get("ingress") or [] for peer in r.get("from") or []
                            if (peer.get("namespaceSelector") or {}).get("matchLabels", {}).get("gfts.io/ingress-controller") == "true"]
    ok(bool(gateway_from_outside), env_name, "the ingress controller namespace must reach the gateway")


def check_ingress(env_name: str, docs) -> None:
    """One Ingress, to the gateway only, of /api and, where the gateway serves the console, /console."""
    ingresses = [d for d in docs if d["kind"] == "Ingress"]
    ok(len(ingresses) == 1, env_name, f"exactly one Ingress expected, found {len(ingresses)}")
    deployment = find_generated(docs, "Deployment", "gateway")
    console = deployment is not None and config_value(docs, deployment, "CONSOLE_ENABLED") != "false"
    allowed = ("/api", "/console") if console else ("/api",)
    for ing in ingresses:
        for rule in ing["spec"].get("rules") or []:
            for path in rule["http"]["paths"]:
                gateway = find_generated(docs, "Service", "gateway")
                ok(gateway is not None and path["backend"]["service"]["name"] == gateway["metadata"]["name"], env_name, "the Ingress may route to the gateway only")
                ok(path["path"] in allowed, env_name, f"Ingress path {path['path']} exposes more than {' and '.join(allowed)}"
                   + ("" if console else " (the gateway does not serve the console: CONSOLE_ENABLED is false)"))
    if env_name == "prod":
        ok(all(i["spec"].get("tls") for i in ingresses), env_name, "prod Ingress needs TLS")


def conf_block(text: str, name: str) -> str | None:
    """The body of a top-level `name {...}` block of a NATS configuration, or None."""
    m = re.search(rf"^\s*{name}\s*[:=]?\s*{{", text, re.M)
    if not m:
        return None
    depth = 0
    for i in range(m.end() - 1, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[m.end() : i]
    return None


def check_no_password_in_configmaps(env_name: str, docs) -> None:
    """Passwords come from Secrets: a ConfigMap may name one ($VAR), never hold one."""
    for d in docs:
        if d["kind"] != "ConfigMap":
            continue
        for key, text in (d.get("data") or {}).items():
            where = f"{env_name} ConfigMap/{d['metadata']['name']} {key}"
            ok(re.search(r"(PASSWORD|SECRET)$", key) is None, where, "a password or secret as a ConfigMap key; it belongs in a Secret")
            literal = [v for v in re.findall(r"^\s*password\s*[:=]\s*(\S+)", str(text), re.M) if not v.startswith("$")]
            ok(not literal, where, f"password literal(s) {literal}: reference a variable from a Secret ($NAME)")
            ok(re.search(r"://[^\s/@:]+:[^\s/@]+@", str(text)) is None, where, "a URL carries credentials; they belong in a Secret")


def check_nats_routes(env_name: str, docs, nats, text: str, replicas: int) -> None:
    """A cluster's routes authenticate, with a password from a Secret, never from the ConfigMap."""
    cluster = conf_block(text, "cluster")
    if not ok(cluster is not None, env_name, f"{replicas} NATS servers but nats.conf has no cluster block"):
        return
    auth = conf_block(cluster, "authorization") or ""
    user = re.search(r"^\s*user\s*[:=]\s*\"?([\w-]+)\"?\s*$", auth, re.M)
    password = re.search(r"^\s*password\s*[:=]\s*\$(\w+)\s*$", auth, re.M)
    if not ok(bool(user and password), env_name,
              "nats.conf cluster needs authorization { user, password: $VAR }: without it anything reaching port 6222 joins as a server"):
        return
    user, password = user.group(1), password.group(1)
    routes = re.search(r"^\s*routes\s*[:=]\s*\[(.*?)\]", cluster, re.M | re.S)
    entries = routes.group(1).split() if routes else []
    ok(bool(entries) and all(re.fullmatch(r"\$\w+", e) for e in entries), env_name,
       f"every cluster route must be a variable holding its URL with credentials (NATS expands none inside a string), found {entries}")
    container = nats["spec"]["template"]["spec"]["containers"][0]
    env = container.get("env") or []
    names = [e["name"] for e in env]
    # the password: a Secret key the rendering generates (trials) or the secret store provides (prod)
    source = next((e for e in env if e["name"] == password), None)
    ref = ((source or {}).get("valueFrom") or {}).get("secretKeyRef") or {}
    if ok(bool(ref), env_name, f"the route password ${password} must come from a Secret (secretKeyRef)"):
        generated = next((d for d in docs if d["kind"] == "Secret" and d["metadata"]["name"] == ref["name"]), None)
        if generated:
            keys = set(generated.get("stringData") or {}) | set(generated.get("data") or {})
        else:
            keys = EXTERNAL_SECRETS.get(ref["name"], set())
        ok(ref["key"] in keys, env_name, f"Secret {ref['name']} has no key {ref['key']} (generated, or documented for the secret store)")
    hosts = set()
    for entry in entries:
        var = entry[1:]
        item = next((e for e in env if e["name"] == var), None)
        url = (item or {}).get("value", "")
        # the kubelet expands $(VAR) only from variables defined before this one
        m = re.fullmatch(rf"nats://{re.escape(user)}:\$\({re.escape(password)}\)@([^:/\s]+):6222", url)
        ok(bool(m) and var in names and password in names and names.index(var) > names.index(password), env_name,
           f"route {entry} must be nats://{user}:$({password})@<server>:6222, defined after {password}; is {url!r}")
        if m:
            hosts.add(m.group(1))
    for i in range(replicas):
        ok(any(re.fullmatch(rf"\S*nats-{i}\.\S*nats-headless", h) for h in hosts), env_name, f"the cluster must route to nats-{i}")


def check_nats(env_name: str, docs, repo: Path) -> None:
    nats = find_generated(docs, "StatefulSet", "nats")
    tasks = find_generated(docs, "Deployment", "tasks")
    if not (ok(nats is not None, env_name, "no NATS StatefulSet") and tasks):
        return
    replicas = nats["spec"].get("replicas", 1)
    stats = (config_value(docs, tasks, "STATS_STREAM_REPLICAS") or "1").strip()
    if ok(stats.isdigit(), env_name, f"tasks: STATS_STREAM_REPLICAS must be a whole number; is {stats!r}"):
        ok(int(stats) <= replicas, env_name, f"STATS_STREAM_REPLICAS {stats} exceeds the {replicas} NATS servers")
    # every stream and bucket a service makes: no more replicas than servers, and the GAMERS
    # stream's alike in every service (each applies its own at start: differing, the stream's
    # replicas changed at every restart)
    gamers: dict[str, int] = {}
    for service in SERVICE_VALUES:
        w = find_generated(docs, "Deployment", service)
        if not w:
            continue
        for setting in ("GAMERS_STREAM_REPLICAS", "PRESENCE_KV_REPLICAS", "RATE_LIMIT_KV_REPLICAS"):
            value = config_value(docs, w, setting)
            if value is None:
                # unset: the service's default (1), where its configuration reads the setting
                if setting == "GAMERS_STREAM_REPLICAS" and setting in (service_settings(repo, service) or {}):
                    gamers[service] = 1
                continue
            if not ok(value.strip().isdigit(), env_name, f"{service}: {setting} must be a whole number; is {value!r}"):
                continue
            ok(int(value) <= replicas, env_name, f"{service}: {setting} {value} exceeds the {replicas} NATS servers")
            if setting == "GAMERS_STREAM_REPLICAS":
                gamers[service] = int(value)
    ok(len(set(gamers.values())) <= 1, env_name, f"GAMERS_STREAM_REPLICAS must be the same in every service (one stream): {gamers}")
    conf = next((d for d in docs if d["kind"] == "ConfigMap" and component(d) == "nats" and "nats.conf" in (d.get("data") or {})), None)
    text = (conf or {}).get("data", {}).get("nats.conf", "")
    ok("store_dir: /data" in text, env_name, "nats.conf must keep the JetStream store on the /data volume")
    # least privilege: the server must load the generated users (no anonymous access)
    auth = (conf or {}).get("data", {}).get("nats-auth.conf", "")
    ok(re.search(r"^include nats-auth\.conf$", text, re.M) is not None and "authorization {" in auth, env_name,
       "nats-config must hold nats-auth.conf and nats.conf must include it")
    for service, svc in SERVICE_VALUES.items():
        if not svc.get("nats"):
            continue
        w = find_generated(docs, "Deployment", service)
        user = config_value(docs, w, "NATS_USER") if w else None
        # every client authenticates: the server admits no anonymous connection
        ok(w is not None and user == service, env_name, f"{service} must connect to NATS as user {service}")
        ok(f'user: "{user}"' in auth, env_name, f"nats-auth.conf has no user {user} for {service}")
        # the users' subjects carry NATS_PREFIX and the gateway's bucket its window, both fixed in the file
        prefix = config_value(docs, w, "NATS_PREFIX") if w else None
        if prefix:
            ok(f'"{prefix}.' in auth, env_name, f"{service} runs with NATS_PREFIX {prefix}, which nats-auth.conf does not use")
        if service == "gateway" and w:
            window = config_value(docs, w, "RATE_LIMIT_WINDOW_MS") or "60000"
            ok(f"KV_gateway_rate_limit_{window}" in auth, env_name, f"the gateway's RATE_LIMIT_WINDOW_MS {window} names a bucket nats-auth.conf does not allow")
    # every password nats-auth.conf references reaches the server (a generated Secret's key,
    # or one documented for the secret store): it refuses to start without one
    keys, _ = pod_env_keys(env_name, docs, nats)
    missing = sorted(set(re.findall(r"\$(NATS_[A-Z0-9_]+_PASSWORD)\b", auth)) - keys)
    ok(not missing, env_name, f"nats-auth.conf reads {missing}, which the NATS server's environment does not have")
    check_no_password_in_configmaps(env_name, docs)
    if replicas > 1:
        check_nats_routes(env_name, docs, nats, text, replicas)
    if env_name == "prod":
        ok(replicas == 3 and stats == "3", env_name, "prod runs 3 NATS servers and a 3-replica stats stream")
        ok(re.search(r"^\s*sync_interval:\s*\"?always\"?\s*$", text, re.M) is not None, env_name, "prod nats.conf must set sync_interval: always")
        zone = [c for c in nats["spec"]["template"]["spec"].get("topologySpreadConstraints") or [] if c["topologyKey"] == "topology.kubernetes.io/zone"]
        ok(bool(zone) and zone[0]["whenUnsatisfiable"] == "DoNotSchedule", env_name, "prod NATS servers must be spread over zones as a hard rule")


# ----------------------------------------------------------------------------- runbooks


def heading_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings (fenced code left out): lower case,
    punctuation but `-` and `_` dropped, spaces as `-`, a repeated one suffixed -1, -2, ..."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def check_runbooks(env_name: str, docs, repo: Path) -> None:
    """Every alert's runbook annotation points at a section of docs/operations.md."""
    anchors = heading_anchors((repo / "docs" / "operations.md").read_text())
    for d in docs:
        if d["kind"] != "PrometheusRule":
            continue
        for group in (d.get("spec") or {}).get("groups") or []:
            for rule in group.get("rules") or []:
                if "alert" not in rule:
                    continue
                where = f"{env_name} PrometheusRule/{d['metadata']['name']} {rule['alert']}"
                runbook = (rule.get("annotations") or {}).get("runbook", "")
                page, _, anchor = runbook.partition("#")
                ok(page == "docs/operations.md" and anchor in anchors, where,
                   f"runbook {runbook!r} is not a section of docs/operations.md (docs/operations.md#<heading anchor>)")


def check_monitoring_labels(env_name: str, docs) -> None:
    """Prod's operator objects carry a selection label beyond the chart's own labels."""
    for d in docs:
        if d["kind"] not in ("ServiceMonitor", "PrometheusRule"):
            continue
        extra = [k for k in (d["metadata"].get("labels") or {}) if not k.startswith(("app.kubernetes.io/", "helm.sh/"))]
        ok(bool(extra), f"{env_name} {d['kind']}/{d['metadata']['name']}",
           "no label a Prometheus selects it by (serviceMonitor.labels / prometheusRule.labels, e.g. release: kube-prometheus-stack): "
           "a default kube-prometheus-stack would ignore it")


# --------------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--compose", type=Path, required=True)
    parser.add_argument("--chart", type=Path, required=True, help="the Helm chart (its values name the services)")
    parser.add_argument("--rendered", action="append", default=[], help="ENV=FILE (dev or prod)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    load_services(args.chart.resolve())

    settings = {s: service_settings(repo, s) for s in SERVICES}
    for s, found in settings.items():
        if found is None:
            print(f"  note: services/{s}/src/config.ts not found or not parsable; environment checks for {s} skipped")

    check_dockerfiles(repo)
    stream_defaults = stream_bytes_defaults(repo)
    check_compose(repo, args.compose.resolve(), settings, stream_defaults)
    for item in args.rendered:
        env_name, _, file = item.partition("=")
        docs = load_rendered(Path(file))
        for w in workloads(docs):
            check_workload_security(env_name, w)
        for service in SERVICES:
            w = find_generated(docs, "Deployment", service)
            if ok(w is not None, env_name, f"Deployment/{service} missing"):
                check_service_workload(env_name, docs, w, settings[service])
        check_references(env_name, docs)
        check_network(env_name, docs)
        check_ingress(env_name, docs)
        check_nats(env_name, docs, repo)
        check_runbooks(env_name, docs, repo)
        if env_name == "prod":
            check_monitoring_labels(env_name, docs)
        check_stream_bytes(f"{env_name} streams", stream_defaults, lambda name: rendered_env(docs, name), rendered_file_store(docs))
        gateway, notifications = find_generated(docs, "Deployment", "gateway"), find_generated(docs, "Deployment", "notifications")
        if gateway is not None and notifications is not None:
            check_live_timeouts(env_name, config_value(docs, gateway, "LIVE_IDLE_TIMEOUT_MS"), config_value(docs, notifications, "NOTIFY_HEARTBEAT_MS"))

    for f in failures:
        print(f"  FAIL {f}")
    print(f"  {passes} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
