{{/* The chart's name: nameOverride, else the chart name. */}}
{{- define "nodesmith.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the objects: fullnameOverride, else the release name when it already holds the
chart's name, else "<release>-<name>"; at most 63 characters (a DNS label).
*/}}
{{- define "nodesmith.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "nodesmith.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "nodesmith.labels" -}}
helm.sh/chart: {{ include "nodesmith.chart" . }}
{{ include "nodesmith.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.additionalLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Labels that select this release's pods. */}}
{{- define "nodesmith.selectorLabels" -}}
app.kubernetes.io/name: {{ include "nodesmith.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The ServiceAccount the controller runs as. */}}
{{- define "nodesmith.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "nodesmith.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The controller image: repository:tag, with @digest when one is given. */}}
{{- define "nodesmith.controller.image" -}}
{{- $tag := default .Chart.AppVersion .Values.controller.image.tag }}
{{- if .Values.controller.image.digest }}
{{- printf "%s:%s@%s" .Values.controller.image.repository $tag .Values.controller.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.controller.image.repository $tag }}
{{- end }}
{{- end }}

{{- define "nodesmith.controller.containerName" -}}
{{- .Values.controller.containerName | default "controller" -}}
{{- end -}}

{{/* The cloud provider, checked: aws or kwok. */}}
{{- define "nodesmith.cloudProvider" -}}
{{- $p := .Values.cloudProvider | default "aws" | toString }}
{{- if not (has $p (list "aws" "kwok")) }}
{{- fail (printf "cloudProvider must be aws or kwok, not %q" $p) }}
{{- end }}
{{- $p }}
{{- end }}

{{/* The cluster name, required: the controller refuses to start without it. */}}
{{- define "nodesmith.clusterName" -}}
{{- $name := tpl (toString (.Values.settings.clusterName | default "")) . }}
{{- if not $name }}
{{- $legacy := dig "aws" "clusterName" "" (.Values.settings | default dict) }}
{{- if $legacy }}
{{- fail (printf "settings.clusterName is required; settings.aws.clusterName (%s) is the layout of Karpenter before v1: set settings.clusterName, and settings.interruptionQueue for settings.aws.interruptionQueueName" $legacy) }}
{{- end }}
{{- fail "settings.clusterName is required: set it to the name of the cluster, e.g. --set settings.clusterName=my-cluster" }}
{{- end }}
{{- $name }}
{{- end }}

{{/*
The name of the leader-election Lease: LEADER_ELECTION_NAME when controller.env sets it, else
nodesmith's default (Karpenter's), so the Role's resourceNames always match the Lease.
*/}}
{{- define "nodesmith.leaderElectionName" -}}
{{- $name := "karpenter-leader-election" }}
{{- range .Values.controller.env }}
{{- if and (eq (toString .name) "LEADER_ELECTION_NAME") .value }}
{{- $name = toString .value }}
{{- end }}
{{- end }}
{{- $name }}
{{- end }}

{{/*
Adds a labelSelector matching this release's pods to ._target when it has none (Helm passes
dictionaries by reference, so the caller's value changes).
*/}}
{{- define "nodesmith.patchLabelSelector" -}}
{{- if not (hasKey ._target "labelSelector") }}
{{- $selectorLabels := (include "nodesmith.selectorLabels" .) | fromYaml }}
{{- $_ := set ._target "labelSelector" (dict "matchLabels" $selectorLabels) }}
{{- end }}
{{- end }}

{{- define "nodesmith.patchPodAffinity" -}}
{{- range $term := (get ._podAffinity "requiredDuringSchedulingIgnoredDuringExecution" | default list) }}
{{- include "nodesmith.patchLabelSelector" (merge (dict "_target" $term) $) }}
{{- end }}
{{- range $weighted := (get ._podAffinity "preferredDuringSchedulingIgnoredDuringExecution" | default list) }}
{{- include "nodesmith.patchLabelSelector" (merge (dict "_target" $weighted.podAffinityTerm) $) }}
{{- end }}
{{- end }}

{{- define "nodesmith.patchAffinity" -}}
{{- with .Values.affinity.podAffinity }}
{{- include "nodesmith.patchPodAffinity" (merge (dict "_podAffinity" .) $) }}
{{- end }}
{{- with .Values.affinity.podAntiAffinity }}
{{- include "nodesmith.patchPodAffinity" (merge (dict "_podAffinity" .) $) }}
{{- end }}
{{- end }}

{{- define "nodesmith.patchTopologySpreadConstraints" -}}
{{- range $constraint := .Values.topologySpreadConstraints }}
{{- include "nodesmith.patchLabelSelector" (merge (dict "_target" $constraint) $) }}
{{- end }}
{{- end }}
