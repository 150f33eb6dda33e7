/**
 * The delivery policy's settings, read the same way by `svc operator` (which enforces it) and
 * `svc api` (which refuses early and previews with it): one parser, one set of messages.
 */
import { ENV_VAR_NAME_PATTERN } from "./env-var-names.ts";
import type { DeliveryPolicy } from "./delivery-policy.ts";
import { isDns1123Label } from "../schema/names.ts";
import type { SettingsReader } from "../schema/settings.ts";

const list = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

/** `serviceNamespace`: svc's own (SVC_NAMESPACE), never delivered to. */
export function readDeliveryPolicy(read: SettingsReader, serviceNamespace: string): DeliveryPolicy {
  const excludedNamespaces = list(
    read.text(
      "SVC_DELIVERY_EXCLUDED_NAMESPACES",
      "",
      "comma-separated namespace names (team-infra,monitoring)",
    ),
  );
  const badNamespaces = excludedNamespaces.filter((n) => !isDns1123Label(n));
  if (badNamespaces.length > 0)
    read.problem(
      "SVC_DELIVERY_EXCLUDED_NAMESPACES",
      `must list namespace names (DNS-1123 labels), got ${JSON.stringify(badNamespaces.join(","))}`,
    );
  const envVarNames = list(
    read.text(
      "SVC_ENV_VAR_NAMES",
      "",
      "comma-separated name patterns, an asterisk standing for any run of characters",
    ),
  );
  const badPatterns = envVarNames.filter((p) => !ENV_VAR_NAME_PATTERN.test(p));
  if (badPatterns.length > 0)
    read.problem(
      "SVC_ENV_VAR_NAMES",
      `must list name patterns of letters, digits, '_' and '*', got ${JSON.stringify(badPatterns.join(","))}`,
    );
  return {
    serviceNamespace,
    excludedNamespaces,
    namespaceOptIn: read.boolean("SVC_DELIVERY_NAMESPACE_OPT_IN", false),
    envVarNames,
  };
}
