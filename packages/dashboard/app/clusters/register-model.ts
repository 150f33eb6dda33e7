/**
 * The cluster registration form, pure: its state, the POST /api/v1/clusters body it sends (only
 * the credential fields of the chosen kind, so the API's "exactly one of kubeconfig, token or
 * credentialRef" rule holds by construction), what is wrong with it as typed, and what the
 * API's schema of the body (compiled ahead of time) refuses besides.
 */
import {
  ClusterRegistrationBodyCheck,
  schemaRefusals,
  unexplainedRefusals,
  GO_DURATION,
  HTTP_URL,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelKey,
  isLabelValue,
  isPlaintextServer,
  matchesPattern,
  type ClusterRegistrationBody,
} from "@svc/core/browser";

export const AUTH_CHOICES = {
  kubeconfig: "kubeconfig file",
  serviceaccount: "ServiceAccount token",
  oidc: "OIDC token",
} as const;
export type AuthChoice = keyof typeof AUTH_CHOICES;

/** Where the credentials come from: pasted here (svc stores them in a Secret) or a Secret you made. */
export type CredentialSource = "inline" | "secret";

export interface RegisterForm {
  id: string;
  displayName: string;
  apiServer: string;
  authMethod: AuthChoice;
  source: CredentialSource;
  kubeconfig: string;
  token: string;
  caData: string;
  secretName: string;
  secretKey: string;
  /** Comma- or space-separated; empty: every namespace but the system ones. */
  namespaces: string;
  resyncPeriod: string;
  /** One `key=value` per line. */
  labels: string;
  /** No CA given: verify the server against the system's public CAs (the API refuses it otherwise). */
  trustSystemCAs: boolean;
}

export const EMPTY_REGISTER_FORM: RegisterForm = {
  id: "",
  displayName: "",
  apiServer: "https://",
  authMethod: "kubeconfig",
  source: "inline",
  kubeconfig: "",
  token: "",
  caData: "",
  secretName: "",
  secretKey: "",
  namespaces: "",
  resyncPeriod: "",
  labels: "",
  trustSystemCAs: false,
};

export function namespaceList(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name !== "");
}

export function labelMap(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    const eq = trimmed.indexOf("=");
    const key = (eq === -1 ? trimmed : trimmed.slice(0, eq)).trim();
    labels[key] = eq === -1 ? "" : trimmed.slice(eq + 1).trim();
  }
  return labels;
}

/** The credential key a referenced Secret holds by default, per auth method. */
export function defaultSecretKey(method: AuthChoice): string {
  return method === "kubeconfig" ? "kubeconfig" : "token";
}

export function registerBody(form: RegisterForm): ClusterRegistrationBody {
  const namespaces = namespaceList(form.namespaces);
  const labels = labelMap(form.labels);
  const credentials: Partial<ClusterRegistrationBody> =
    form.source === "secret"
      ? {
          credentialRef: {
            name: form.secretName.trim(),
            key: form.secretKey.trim() === "" ? defaultSecretKey(form.authMethod) : form.secretKey.trim(),
          },
        }
      : form.authMethod === "kubeconfig"
        ? { kubeconfig: form.kubeconfig }
        : { token: form.token.trim(), ...(form.caData.trim() === "" ? {} : { caData: form.caData.trim() }) };
  return {
    id: form.id.trim(),
    displayName: form.displayName.trim(),
    apiServer: form.apiServer.trim(),
    authMethod: form.authMethod,
    ...credentials,
    ...(namespaces.length === 0 ? {} : { namespaces }),
    ...(form.resyncPeriod.trim() === "" ? {} : { resyncPeriod: form.resyncPeriod.trim() }),
    ...(Object.keys(labels).length === 0 ? {} : { labels }),
    ...(form.trustSystemCAs ? { trustSystemCAs: true } : {}),
  };
}

/** What is wrong as typed, keyed by the field names the API uses. */
export function registerProblems(form: RegisterForm): Partial<Record<string, string>> {
  const problems: Partial<Record<string, string>> = {};
  if (!isDns1123Label(form.id.trim())) problems["id"] = "id: lowercase letters, digits and '-' (at most 63)";
  if (form.displayName.trim() === "")
    problems["displayName"] = "displayName: give the cluster a name people recognize";
  if (!matchesPattern(HTTP_URL, form.apiServer.trim())) {
    problems["apiServer"] = "apiServer: the API server's https:// URL, e.g. https://10.0.0.1:6443";
  } else if (isPlaintextServer(form.apiServer.trim())) {
    // insecure.allowPlaintext, with its reason, is for the API and kubectl: not offered here.
    problems["apiServer"] = "apiServer: https:// - over http:// the credentials would travel unencrypted";
  }
  if (form.source === "secret") {
    if (!isDns1123Subdomain(form.secretName.trim()))
      problems["credentialRef.name"] = "credentialRef.name: a Secret name";
  } else if (form.authMethod === "kubeconfig") {
    if (form.kubeconfig.trim() === "") problems["kubeconfig"] = "kubeconfig: paste the kubeconfig file";
  } else if (form.token.trim() === "") {
    problems["token"] = "token: paste the bearer token";
  }
  for (const name of namespaceList(form.namespaces)) {
    if (!isDns1123Label(name))
      problems["namespaces"] = `namespaces: ${JSON.stringify(name)} is not a namespace name`;
  }
  if (form.resyncPeriod.trim() !== "" && !matchesPattern(GO_DURATION, form.resyncPeriod.trim())) {
    problems["resyncPeriod"] = "resyncPeriod: a duration such as 30s, 5m or 1h";
  }
  for (const [key, value] of Object.entries(labelMap(form.labels))) {
    if (!isLabelKey(key) || !isLabelValue(value))
      problems["labels"] = `labels: ${key}=${value} is not a valid label`;
  }
  return problems;
}

/**
 * What the API's schema refuses in the body the form sends, as "field: reason", that the
 * problems above do not already name (a CA certificate that is not base64, say): not sent then.
 */
export function registerRefusals(form: RegisterForm): string[] {
  const refusals = schemaRefusals(ClusterRegistrationBodyCheck, registerBody(form));
  return unexplainedRefusals(refusals, Object.keys(registerProblems(form))).map(([field, reason]) =>
    field === "" ? reason : `${field}: ${reason}`,
  );
}
