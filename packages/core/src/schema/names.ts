/**
 * Name formats of Kubernetes (apimachinery's validation package), written once so that the
 * TypeScript checks and the CRD's OpenAPI/CEL rules use the very same expressions. Every
 * pattern here is both a JavaScript RegExp and an RE2 expression (CEL's `matches`).
 */

/** DNS-1123 label: namespaces, flag names, cluster ids. */
export const DNS1123_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
export const DNS1123_LABEL_MAX = 63;
export const DNS1123_LABEL_MESSAGE =
  "must be a DNS-1123 label: at most 63 lowercase letters, digits or '-', starting and ending with a letter or digit";

/** DNS-1123 subdomain: ConfigMap and Secret names. */
export const DNS1123_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
export const DNS1123_SUBDOMAIN_MAX = 253;

/** An environment variable name as C and POSIX shells accept it. */
export const C_IDENTIFIER = "^[A-Za-z_][A-Za-z0-9_]*$";
export const ENV_NAME_MAX = 253;

/** A ConfigMap data key ("." and ".." are refused separately). */
export const CONFIGMAP_KEY = "^[-._a-zA-Z0-9]+$";
export const CONFIGMAP_KEY_MAX = 253;

/** A label key: an optional DNS subdomain prefix and "/", then a name of at most 63 characters. */
export const LABEL_KEY =
  "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";
/** Longest label key prefix (a DNS subdomain). */
export const LABEL_KEY_PREFIX_MAX = 253;

/** A label value: empty, or at most 63 characters starting and ending with an alphanumeric. */
export const LABEL_VALUE = "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$";
export const LABEL_VALUE_MAX = 63;

/** A Go duration as Kubernetes components parse it, e.g. "30s", "5m", "1h30m". */
export const GO_DURATION = "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$";

/** An absolute http(s) URL with a host. */
export const HTTP_URL = "^https?://[^\\s/?#]+([/?#][^\\s]*)?$";

/** An http:// (not https://) URL: whatever is sent to it travels unencrypted. */
export function isPlaintextServer(url: string): boolean {
  return /^http:\/\//i.test(url);
}

const compiled = new Map<string, RegExp>();

/** True when `value` matches one of the patterns above (compiled once). */
export function matchesPattern(pattern: string, value: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(pattern, "u");
    compiled.set(pattern, re);
  }
  return re.test(value);
}

export function isDns1123Label(value: string): boolean {
  return value.length <= DNS1123_LABEL_MAX && matchesPattern(DNS1123_LABEL, value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length <= DNS1123_SUBDOMAIN_MAX && matchesPattern(DNS1123_SUBDOMAIN, value);
}

export function isLabelKey(key: string): boolean {
  const slash = key.indexOf("/");
  return (slash === -1 || slash <= LABEL_KEY_PREFIX_MAX) && matchesPattern(LABEL_KEY, key);
}

export function isLabelValue(value: string): boolean {
  return value.length <= LABEL_VALUE_MAX && matchesPattern(LABEL_VALUE, value);
}
