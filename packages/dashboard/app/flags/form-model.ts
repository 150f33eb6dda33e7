/**
 * The flag form's decisions, pure: the form's state from a flag, the request body from the
 * form, and what is wrong with it as the user types, by the same rules the API applies (from
 * @svc/core/browser), and last the API's own schema of the body (compiled ahead of time).
 * Problems are keyed by the field names the API uses in its messages, so a problem found here
 * and one the API returns land next to the same input.
 */
import {
  FlagCreateBodyCheck,
  schemaRefusals,
  unexplainedRefusals,
  DEFAULT_SIDECAR_PORT,
  deliveryKind,
  defaultValueProblem,
  DNS1123_SUBDOMAIN,
  isDns1123Label,
  isLabelKey,
  isLabelValue,
  matchesPattern,
  C_IDENTIFIER,
  CONFIGMAP_KEY,
  SIDECAR_PORT_MAX,
  SIDECAR_PORT_MIN,
  type DeliveryKind,
  type FlagCreateBody,
  type FlagType,
  type FlagView,
  type PreviewEntry,
} from "@svc/core/browser";
import {
  NO_TARGETING,
  targetingBody,
  targetingFormOf,
  targetingProblems,
  type TargetingForm,
} from "./targeting-model.ts";

export interface LabelRow {
  key: string;
  value: string;
}

export interface FlagForm {
  clusterId: string;
  namespace: string;
  name: string;
  type: FlagType;
  value: string;
  description: string;
  enabled: boolean;
  kind: DeliveryKind;
  /** Empty: the API's default (FLAG_ and the name upper-cased). */
  envVarName: string;
  configMapName: string;
  configMapKey: string;
  /** Empty: the default port. */
  sidecarPort: string;
  labels: LabelRow[];
  /** Variants and the rule; with variants, `value` is unused (the default variant's value is sent). */
  targeting: TargetingForm;
}

/** Field name (as the API names it) → what is wrong with it. */
export type FormProblems = Partial<Record<string, string>>;

export function emptyForm(clusterId = "", namespace = ""): FlagForm {
  return {
    clusterId,
    namespace,
    name: "",
    type: "boolean",
    value: "false",
    description: "",
    enabled: true,
    kind: "envVar",
    envVarName: "",
    configMapName: "",
    configMapKey: "",
    sidecarPort: "",
    labels: [{ key: "app", value: "" }],
    targeting: NO_TARGETING,
  };
}

/** A value that suits a newly chosen type, so switching type does not start with an error. */
export function valueForType(type: FlagType, previous: string): string {
  if (defaultValueProblem(type, previous) === undefined) return previous;
  return { boolean: "false", integer: "0", string: previous, json: "{}" }[type];
}

export function formFromFlag(flag: FlagView): FlagForm {
  const kind = deliveryKind(flag.delivery);
  const { envVar, configMap, sidecar } = flag.delivery;
  const matchLabels = (envVar ?? configMap ?? sidecar)?.selector.matchLabels ?? {};
  return {
    clusterId: flag.clusterId,
    namespace: flag.namespace,
    name: flag.name,
    type: flag.type,
    value: flag.defaultValue,
    description: flag.description,
    enabled: flag.enabled,
    kind,
    envVarName: envVar?.name ?? "",
    configMapName: configMap?.configMapName ?? "",
    configMapKey: configMap?.key ?? "",
    sidecarPort: sidecar?.port === undefined ? "" : String(sidecar.port),
    labels: Object.entries(matchLabels).map(([key, value]) => ({ key, value })),
    targeting: targetingFormOf(flag),
  };
}

function delivery(form: FlagForm): FlagCreateBody["delivery"] {
  const selector = {
    matchLabels: Object.fromEntries(form.labels.map((row) => [row.key.trim(), row.value.trim()])),
  };
  switch (form.kind) {
    case "envVar":
      return { envVar: { ...(form.envVarName === "" ? {} : { name: form.envVarName.trim() }), selector } };
    case "configMap":
      return {
        configMap: { configMapName: form.configMapName.trim(), key: form.configMapKey.trim(), selector },
      };
    case "sidecar":
      return {
        sidecar: { ...(form.sidecarPort === "" ? {} : { port: Number(form.sidecarPort) }), selector },
      };
  }
}

/** The body of POST /api/v1/flags (and, with resourceVersion added, of PUT). */
export function bodyFromForm(form: FlagForm): FlagCreateBody {
  return {
    name: form.name.trim(),
    namespace: form.namespace,
    clusterId: form.clusterId,
    type: form.type,
    description: form.description,
    enabled: form.enabled,
    delivery: delivery(form),
    ...targetingBody(form.targeting, form.value),
  };
}

const IDENTITY_FIELDS = ["name", "namespace", "clusterId"] as const;

/**
 * The draft the API evaluates (POST /api/v1/flags/evaluate), or undefined while the form has
 * problems other than its identity: identity fields not filled in yet are left out, so a rule
 * is checked before the flag is named (a split buckets by the flag's key, its name: the
 * answers of a rollout are the saved flag's once the name is typed).
 */
export function evaluationDraft(form: FlagForm): Partial<FlagCreateBody> | undefined {
  const problems = formProblems(form);
  const blocking = Object.keys(problems).filter(
    (field) => !(IDENTITY_FIELDS as readonly string[]).includes(field),
  );
  if (blocking.length > 0) return undefined;
  const { name, namespace, clusterId, ...spec } = bodyFromForm(form);
  return {
    ...spec,
    ...(problems["name"] === undefined ? { name } : {}),
    ...(problems["namespace"] === undefined ? { namespace } : {}),
    ...(problems["clusterId"] === undefined ? { clusterId } : {}),
  };
}

/** The field name the API uses for the selector of the chosen delivery. */
export function selectorField(kind: DeliveryKind): string {
  return `delivery.${kind}.selector.matchLabels`;
}

function labelProblems(rows: readonly LabelRow[]): string | undefined {
  if (rows.length === 0) {
    return "add at least one label: an empty selector would match (and restart) every workload of the namespace";
  }
  const seen = new Set<string>();
  for (const { key, value } of rows) {
    const k = key.trim();
    if (!isLabelKey(k)) return `label key ${JSON.stringify(k)} is not a valid label key`;
    if (!isLabelValue(value.trim()))
      return `label value ${JSON.stringify(value)} of ${k} is not a valid label value`;
    if (seen.has(k)) return `label key ${k} appears twice`;
    seen.add(k);
  }
  return undefined;
}

/** What is wrong with the form now; empty when it may be sent. */
export function formProblems(form: FlagForm): FormProblems {
  const problems: FormProblems = {};
  const name = form.name.trim();
  if (!isDns1123Label(name)) {
    problems["name"] =
      "name: lowercase letters, digits and '-', starting and ending with a letter or digit (at most 63)";
  }
  if (form.clusterId === "") problems["clusterId"] = "clusterId: choose a cluster";
  if (!isDns1123Label(form.namespace)) problems["namespace"] = "namespace: choose a namespace";
  const valueProblem = defaultValueProblem(form.type, form.value);
  if (valueProblem !== undefined && form.targeting.variants.length === 0)
    problems["defaultValue"] = `defaultValue: ${valueProblem}`;
  Object.assign(problems, targetingProblems(form.targeting, form.type));
  if (
    form.kind === "envVar" &&
    form.envVarName !== "" &&
    !matchesPattern(C_IDENTIFIER, form.envVarName.trim())
  ) {
    problems["delivery.envVar.name"] =
      "delivery.envVar.name: letters, digits and '_', not starting with a digit";
  }
  if (form.kind === "configMap") {
    if (!matchesPattern(DNS1123_SUBDOMAIN, form.configMapName.trim())) {
      problems["delivery.configMap.configMapName"] =
        "delivery.configMap.configMapName: lowercase letters, digits, '-' and '.'";
    }
    const key = form.configMapKey.trim();
    if (!matchesPattern(CONFIGMAP_KEY, key) || key === "." || key === "..") {
      problems["delivery.configMap.key"] = "delivery.configMap.key: letters, digits, '-', '_' and '.'";
    }
  }
  if (form.kind === "sidecar" && form.sidecarPort !== "") {
    const port = Number(form.sidecarPort);
    if (!/^[0-9]+$/.test(form.sidecarPort) || port < SIDECAR_PORT_MIN || port > SIDECAR_PORT_MAX) {
      problems["delivery.sidecar.port"] =
        `delivery.sidecar.port: a port from ${SIDECAR_PORT_MIN} to ${SIDECAR_PORT_MAX} (default ${DEFAULT_SIDECAR_PORT})`;
    }
  }
  const labels = labelProblems(form.labels);
  if (labels !== undefined) problems[selectorField(form.kind)] = `${selectorField(form.kind)}: ${labels}`;
  return { ...problems, ...schemaProblems(form, Object.keys(problems)) };
}

/**
 * What the API's schema refuses in the body the form sends and no rule above explains (a
 * description over its length, say). An edit sends the same body and its resourceVersion,
 * which the update's schema takes whenever the create's takes the rest.
 */
function schemaProblems(form: FlagForm, explained: readonly string[]): FormProblems {
  const refusals = schemaRefusals(FlagCreateBodyCheck, bodyFromForm(form));
  return Object.fromEntries(
    unexplainedRefusals(refusals, explained).map(([field, reason]) => [
      field,
      field === "" ? reason : `${field}: ${reason}`,
    ]),
  );
}

/** The parse error of a JSON value, for the editor's message as the user types. */
export function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The warning the preview shows before saving: which workloads saving would restart. */
export function restartWarning(entries: readonly PreviewEntry[]): string | undefined {
  const restarting = entries.filter((entry) => entry.restarts);
  if (restarting.length === 0) return undefined;
  const names = restarting.map((entry) => `${entry.kind} ${entry.namespace}/${entry.name}`).join(", ");
  return restarting.length === 1
    ? `1 workload will restart: ${names}`
    : `${restarting.length} workloads will restart: ${names}`;
}
