{{- define "svc.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "svc.labels" -}}
app.kubernetes.io/part-of: svc
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{/* Non-root, read-only root filesystem, no privilege, no capabilities (restricted profile). */}}
{{- define "svc.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile: { type: RuntimeDefault }
{{- end -}}

{{- define "svc.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities: { drop: [ALL] }
{{- end -}}

{{/* The admin password: explicit, else the development one, else the one kept in the Secret, else a new random one. */}}
{{- define "svc.adminPassword" -}}
{{- if .Values.auth.adminPassword -}}
{{ .Values.auth.adminPassword }}
{{- else if eq .Values.profile "development" -}}
admin-dev-password
{{- else -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace "svc-admin" -}}
{{- if and $existing $existing.data (index $existing.data "password") -}}
{{ index $existing.data "password" | b64dec }}
{{- else -}}
{{ randAlphaNum 16 }}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "svc.proxySecret" -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace "svc-proxy" -}}
{{- if and $existing $existing.data (index $existing.data "secret") -}}
{{ index $existing.data "secret" | b64dec }}
{{- else -}}
{{ randAlphaNum 48 }}
{{- end -}}
{{- end -}}

{{/* The delivery guardrails' variables, the same for the API and the operator (docs/delivery.md, "Guardrails"). */}}
{{- define "svc.deliveryEnv" -}}
{{- with .Values.delivery }}
{{- with .excludedNamespaces }}
- { name: SVC_DELIVERY_EXCLUDED_NAMESPACES, value: {{ join "," . | quote }} }
{{- end }}
{{- if .namespaceOptIn }}
- { name: SVC_DELIVERY_NAMESPACE_OPT_IN, value: "true" }
{{- end }}
{{- with .envVarNames }}
- { name: SVC_ENV_VAR_NAMES, value: {{ join "," . | quote }} }
{{- end }}
{{- end }}
{{- end -}}
