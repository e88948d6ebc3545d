{{/* Release-wide name prefix: the release name, or <release>-gfts. */}}
{{- define "gfts.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels on every object, next to gfts.selectorLabels (a component's) or gfts.releaseLabels. */}}
{{- define "gfts.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gfts
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/* Labels of an object that belongs to the release rather than one component. */}}
{{- define "gfts.releaseLabels" -}}
{{ include "gfts.labels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Selector labels of one component: (list $ "gateway"). */}}
{{- define "gfts.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ index . 1 }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
{{- end -}}

{{/*
A setting's value as the services read it. A whole number is written in digits: values pass
through YAML as float64 (gfts.deepMerge, and --set), and toString wrote 1000000 as "1e+06",
which the services refuse at start (their integers are decimal digits only).
*/}}
{{- define "gfts.envText" -}}
{{- if and (kindIs "float64" .) (eq (floor .) .) -}}
{{- printf "%.0f" . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/*
Deep merge (list $base $over) as YAML: $over's values win, false and 0 included (Sprig's
merge and mergeOverwrite both treat those as unset), maps merge key by key, lists are replaced.
*/}}
{{- define "gfts.deepMerge" -}}
{{- $out := deepCopy (index . 0) -}}
{{- range $key, $value := index . 1 -}}
{{- if and (kindIs "map" $value) (kindIs "map" (index $out $key)) -}}
{{- $_ := set $out $key (include "gfts.deepMerge" (list (index $out $key) $value) | fromYaml) -}}
{{- else -}}
{{- $_ := set $out $key $value -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* One service's values: serviceDefaults with the entry merged over them: (list $ "tasks"). */}}
{{- define "gfts.service" -}}
{{- $root := index . 0 -}}
{{- $entry := index $root.Values.services (index . 1) | default dict -}}
{{- include "gfts.deepMerge" (list $root.Values.serviceDefaults $entry) -}}
{{- end -}}

{{/* Names of the enabled services, sorted. */}}
{{- define "gfts.serviceNames" -}}
{{- $names := list -}}
{{- range $name, $_ := .Values.services -}}
{{- $svc := include "gfts.service" (list $ $name) | fromYaml -}}
{{- if $svc.enabled }}{{ $names = append $names $name }}{{ end -}}
{{- end -}}
{{- toJson (sortAlpha $names) -}}
{{- end -}}

{{/*
The GftsServiceDown rule of a service added by values (files/prometheus-rules.yaml writes
the chart's four out): (list $ "sample"). `absent(up == 1)`: no target of the service
answered its last scrape.
*/}}
{{- define "gfts.serviceDownRule" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $summary := printf "%s: no pod answers its scrape" $name -}}
- alert: GftsServiceDown
  expr: absent(up{namespace="{{ $root.Release.Namespace }}",job="{{ include "gfts.fullname" $root }}-{{ $name }}"} == 1)
  for: 3m
  labels:
    severity: critical
    service: {{ $name | quote }}
  annotations:
    summary: {{ $summary | quote }}
    runbook: docs/operations.md#all-pods-of-a-service-down
{{- end -}}

{{/*
In-cluster URL of a service of this chart: (list $ "friendship"); empty when the service is
left out (enabled: false), and a setting rendered empty is not set at all (services.yaml).
*/}}
{{- define "gfts.serviceUrl" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $svc := include "gfts.service" (list $root $name) | fromYaml -}}
{{- if $svc.enabled -}}
{{- printf "http://%s-%s:%v" (include "gfts.fullname" $root) $name $svc.port -}}
{{- end -}}
{{- end -}}

{{/* Of a comma-separated list of services, those enabled, in its order: (list $ "tasks,friendship"). */}}
{{- define "gfts.enabledAmong" -}}
{{- $root := index . 0 -}}
{{- $enabled := include "gfts.serviceNames" $root | fromJsonArray -}}
{{- $kept := list -}}
{{- range $name := splitList "," (index . 1) -}}
{{- if has $name $enabled }}{{ $kept = append $kept $name }}{{ end -}}
{{- end -}}
{{- join "," $kept -}}
{{- end -}}

{{/* The NATS client URLs: every in-cluster server (a client starting while one is down still connects), or nats.url. */}}
{{- define "gfts.natsUrl" -}}
{{- $fullname := include "gfts.fullname" . -}}
{{- if .Values.nats.inCluster.enabled -}}
{{- $urls := list -}}
{{- range $i := until (int .Values.nats.inCluster.replicas) -}}
{{- $urls = append $urls (printf "nats://%s-nats-%d.%s-nats-headless:4222" $fullname $i $fullname) -}}
{{- end -}}
{{- join "," $urls -}}
{{- else -}}
{{- required "nats.url is required when nats.inCluster.enabled is false" .Values.nats.url -}}
{{- end -}}
{{- end -}}

{{- define "gfts.internalSecretName" -}}
{{- .Values.internalSecret.name | default (printf "%s-internal" (include "gfts.fullname" .)) -}}
{{- end -}}

{{/* The Secret a service reads with envFrom: (list $ "tasks" $svc). */}}
{{- define "gfts.serviceSecretName" -}}
{{- $root := index . 0 -}}
{{- $svc := index . 2 -}}
{{- $svc.secretName | default (printf "%s-%s" (include "gfts.fullname" $root) (index . 1)) -}}
{{- end -}}

{{- define "gfts.natsUsersSecretName" -}}
{{- .Values.nats.inCluster.usersSecret | default (printf "%s-nats-users" (include "gfts.fullname" .)) -}}
{{- end -}}

{{/* The Secret with the cluster routes' password (key NATS_ROUTE_PASSWORD), read by the NATS servers only. */}}
{{- define "gfts.natsRouteSecretName" -}}
{{- .Values.nats.inCluster.routeSecret | default (printf "%s-nats-route" (include "gfts.fullname" .)) -}}
{{- end -}}

{{/* The environment variable the NATS server reads a user's password from (libs/contracts nats-permissions.ts). */}}
{{- define "gfts.natsPasswordEnv" -}}
{{- printf "NATS_%s_PASSWORD" (regexReplaceAll "[^A-Z0-9]" (upper .) "_") -}}
{{- end -}}

{{/*
Image reference of a service: (list $ $imageValues "tasks"). The tag: the service's, else
image.tag. With neither, a trial (trial.secrets) runs the chart's appVersion; any other
release refuses to render: a config-only `helm upgrade -f values-production.yaml` without
the tag would otherwise roll every service to the appVersion, whatever runs now.
*/}}
{{- define "gfts.image" -}}
{{- $root := index . 0 -}}
{{- $image := index . 1 -}}
{{- $name := index . 2 -}}
{{- $tag := $image.tag | default $root.Values.image.tag | toString -}}
{{- if not $tag -}}
{{- if not $root.Values.trial.secrets -}}
{{- fail (printf "image.tag (or services.%s.image.tag) is required: without it the %s pods would run the chart's appVersion %s, not the images running now (a config-only helm upgrade would roll every service to it). Pass the release's current tag, e.g. --set-string image.tag=<version>, on every upgrade (docs/operations.md, \"Configure\"); only trials (trial.secrets=true) default to the appVersion." $name $name $root.Chart.AppVersion) -}}
{{- end -}}
{{- $tag = $root.Chart.AppVersion -}}
{{- end -}}
{{- $sep := ternary "@" ":" (hasPrefix "sha256:" $tag) -}}
{{- printf "%s%s%s%s" $root.Values.image.registry $image.repository $sep $tag -}}
{{- end -}}
