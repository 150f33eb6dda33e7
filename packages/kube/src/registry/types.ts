import type { ObjectMeta } from "@svc/core";

/** One set of resource shapes for every package: core's (metadata.name is always present here). */
export type { ClusterConnectionResource, FeatureFlagResource } from "@svc/core";
export type ObjectMetaJson = ObjectMeta & { name: string };

/** A Secret as JSON: `data` values are base64. Only the registry's credential reader looks inside. */
export interface SecretJson {
  metadata: ObjectMetaJson;
  data?: Record<string, string>;
}

export interface Logger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
