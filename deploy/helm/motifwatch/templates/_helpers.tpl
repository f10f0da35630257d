{{- define "motifwatch.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "motifwatch.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "motifwatch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "motifwatch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "motifwatch.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "motifwatch.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The daemon's config.yaml: values.config with the keys the chart owns. */}}
{{- define "motifwatch.config" -}}
{{- $cfg := deepCopy .Values.config -}}
{{- /* metrics.listen binds 0.0.0.0: every address of the pod, so the
endpoints (unauthenticated; the status page shows the last alerts) are
exposed to the whole pod network, not only to the Service. Restrict who
reaches the port with a NetworkPolicy. The other metrics keys (the HTTP
connection cap and timeouts) pass through from values.config.metrics. */ -}}
{{- $metrics := deepCopy (default dict $cfg.metrics) -}}
{{- $_ := set $metrics "listen" (printf "0.0.0.0:%d" (int .Values.service.port)) -}}
{{- $_ := set $cfg "metrics" $metrics -}}
{{- $files := list -}}
{{- range $name, $_ := .Values.queries -}}
{{- $files = append $files (printf "/etc/motifwatch/queries/%s" $name) -}}
{{- end -}}
{{- $q := deepCopy (default dict $cfg.queries) -}}
{{- $_ := set $q "files" $files -}}
{{- $_ := set $cfg "queries" $q -}}
{{- $kafka := deepCopy (default dict $cfg.kafka) -}}
{{- if .Values.kafka.sasl.enabled -}}
{{- /* username and password come from the Secret, as environment variables */ -}}
{{- $_ := set $kafka "sasl" (dict "mechanism" .Values.kafka.sasl.mechanism "allow_insecure" (.Values.kafka.sasl.allowInsecure | default false)) -}}
{{- end -}}
{{- if .Values.kafka.tls.enabled -}}
{{- $tls := dict "enabled" true -}}
{{- if .Values.kafka.tls.existingSecret -}}
{{- if .Values.kafka.tls.caKey -}}{{- $_ := set $tls "ca_file" (printf "/etc/motifwatch/tls/%s" .Values.kafka.tls.caKey) -}}{{- end -}}
{{- if .Values.kafka.tls.certKey -}}{{- $_ := set $tls "cert_file" (printf "/etc/motifwatch/tls/%s" .Values.kafka.tls.certKey) -}}{{- end -}}
{{- if .Values.kafka.tls.keyKey -}}{{- $_ := set $tls "key_file" (printf "/etc/motifwatch/tls/%s" .Values.kafka.tls.keyKey) -}}{{- end -}}
{{- end -}}
{{- if .Values.kafka.tls.serverName -}}{{- $_ := set $tls "server_name" .Values.kafka.tls.serverName -}}{{- end -}}
{{- $_ := set $kafka "tls" $tls -}}
{{- end -}}
{{- $_ := set $cfg "kafka" $kafka -}}
{{- toYaml $cfg -}}
{{- end -}}
