// The request bodies of `create` and `set`, built from command-line options (pure: unit-tested).
// They are sent as they are: the API server validates them with core's rules and names the
// field it refuses.
import {
  deliveryKind,
  type Delivery,
  type FlagCreateBody,
  type FlagUpdateBody,
  type FlagView,
} from "@svc/core";
import type { DefinitionOptions, FlagRef } from "./parse.ts";
import { definitionOf } from "./plan.ts";

type FlagType = FlagCreateBody["type"];

/**
 * A delivery from options, over `base` when it has the same kind: `set --selector` keeps the
 * variable's name, the ConfigMap or the port; a new kind starts from its own defaults.
 */
export function deliveryOf(options: DefinitionOptions, base?: Delivery): Delivery {
  const baseKind = base === undefined ? undefined : deliveryKind(base);
  const kind = options.delivery ?? baseKind ?? "sidecar";
  const same = kind === baseKind ? base : undefined;
  const baseSelector = base?.envVar?.selector ?? base?.configMap?.selector ?? base?.sidecar?.selector;
  const selector = { matchLabels: options.selector ?? baseSelector?.matchLabels ?? {} };
  if (kind === "envVar") {
    const name = options.envName ?? same?.envVar?.name;
    return { envVar: { ...(name === undefined ? {} : { name }), selector } };
  }
  if (kind === "configMap") {
    const configMapName = options.configMap ?? same?.configMap?.configMapName ?? "";
    const key = options.key ?? same?.configMap?.key ?? "";
    return { configMap: { configMapName, key, selector } };
  }
  const port = options.port ?? same?.sidecar?.port;
  return { sidecar: { ...(port === undefined ? {} : { port }), selector } };
}

/** POST /api/v1/flags for `svc flags create`. */
export function createBody(flag: FlagRef, options: DefinitionOptions, enabled: boolean): FlagCreateBody {
  return {
    name: flag.name,
    namespace: flag.namespace,
    clusterId: flag.cluster,
    type: (options.type ?? "boolean") as FlagType,
    defaultValue: options.value ?? "",
    ...(options.description === undefined ? {} : { description: options.description }),
    enabled,
    delivery: deliveryOf(options),
  };
}

/**
 * PUT /api/v1/flags/{ns}/{name} for `svc flags set`: the flag as read, with the options' fields
 * changed, and the resourceVersion read, so a change of the definition made meanwhile is refused
 * (409, naming it) instead of overwritten; the operator's status writes meanwhile are not
 * conflicts. `enabled` is left out: the flag keeps its state.
 */
export function setBody(current: FlagView, options: DefinitionOptions): FlagUpdateBody {
  const body = definitionOf(current, false);
  if (options.type !== undefined) body["type"] = options.type;
  if (options.value !== undefined) body["defaultValue"] = options.value;
  if (options.description !== undefined) body["description"] = options.description;
  const touchesDelivery = (["delivery", "selector", "envName", "configMap", "key", "port"] as const).some(
    (field) => options[field] !== undefined,
  );
  if (touchesDelivery) body["delivery"] = deliveryOf(options, current.delivery);
  return { ...body, resourceVersion: current.resourceVersion } as FlagUpdateBody;
}
