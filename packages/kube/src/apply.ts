// The one way svc writes objects it manages: server-side apply under one field manager, so each
// write states the whole svc-owned part of an object and the API server removes whatever svc
// set before and no longer states (an env var, a ConfigMap key, a finalizer) without touching
// fields of other managers. Also the reads and deletes that go with it, over the cluster's
// shared, time-bounded connection pool.
import type { KubeConfig } from "@kubernetes/client-node";
import { KubeApiError } from "@svc/kube-wire";
import { ClusterTransport, type Payload, type WatchEvent } from "./registry/transport.ts";

/** The identity of an object: enough to find its URL. */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string | undefined };
}

/** An apply configuration: the identity plus the fields svc owns, nothing else. */
export type ApplyConfiguration = ObjectReference & {
  metadata: ObjectReference["metadata"] & Record<string, unknown>;
} & Record<string, unknown>;

/** What a delete requires of the object: this version, or this object (not a newer one of its name). */
export interface Preconditions {
  resourceVersion?: string | undefined;
  uid?: string | undefined;
}

/** Options of every call. */
export interface RequestOptions {
  /** Ends the call early (a reconcile canceled by shutdown or lost leadership), besides the timeout. */
  signal?: AbortSignal | undefined;
}

export interface ApplyOptions extends RequestOptions {
  /**
   * Take over fields another manager owns instead of failing with 409 Conflict. Controllers
   * force (the state they apply is theirs by design); a person's tool should not.
   */
  force: boolean;
  /** Write the status subresource (the main resource ignores status, and status ignores the rest). */
  subresource?: "status" | undefined;
}

/** The field manager of everything svc writes with server-side apply. */
export const FIELD_MANAGER = "svc";

/** An object's metadata only, as the API server answers it on request. */
const METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/** The plural (URL) name of each kind svc writes or reads. */
const PLURALS: Readonly<Record<string, string>> = {
  Namespace: "namespaces",
  Pod: "pods",
  Secret: "secrets",
  Deployment: "deployments",
  StatefulSet: "statefulsets",
  DaemonSet: "daemonsets",
  ConfigMap: "configmaps",
  Event: "events",
  Role: "roles",
  RoleBinding: "rolebindings",
  Lease: "leases",
  FeatureFlag: "featureflags",
  FlagRollout: "flagrollouts",
  ClusterConnection: "clusterconnections",
  CustomResourceDefinition: "customresourcedefinitions",
};

/** `/api/v1/namespaces/ns/configmaps`, `/apis/apps/v1/...`: where objects of a kind are listed and created. */
export function collectionPath(apiVersion: string, kind: string, namespace: string | undefined): string {
  const plural = PLURALS[kind];
  if (plural === undefined) throw new Error(`svc does not write objects of kind ${kind}`);
  const group = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const scope = namespace === undefined ? "" : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${group}${scope}/${plural}`;
}

/** `/api/v1/namespaces/ns/configmaps/name`, `/apis/apps/v1/...`. */
export function objectPath(ref: ObjectReference): string {
  const { metadata } = ref;
  return `${collectionPath(ref.apiVersion, ref.kind, metadata.namespace)}/${encodeURIComponent(metadata.name)}`;
}

/** The API server's whole message for a JSON patch it cannot apply (a failed test operation). */
const UNAPPLICABLE_PATCH = "the server rejected our request due to an error in our request";

/** One operation of a JSON patch (RFC 6902) as svc uses them. */
export type JsonPatchOperation =
  { op: "add" | "replace"; path: string; value: unknown } | { op: "remove"; path: string };

export interface ObjectWriterOptions {
  /** Bound on each call. */
  timeoutMs: number;
  /** Default FIELD_MANAGER ("svc"). */
  fieldManager?: string;
  /** Told of every write that reached the API server (applies and deletes), for metrics and tests. */
  onWrite?: (verb: "apply" | "patch" | "replace" | "create" | "delete", ref: ObjectReference) => void;
  /** A connection pool to share (a connected cluster's); its owner closes it, close() does not. */
  transport?: ClusterTransport;
}

export class ObjectWriter {
  readonly #transport: ClusterTransport;
  readonly #ownsTransport: boolean;
  readonly #options: ObjectWriterOptions;

  constructor(kubeConfig: KubeConfig, options: ObjectWriterOptions) {
    this.#ownsTransport = options.transport === undefined;
    this.#transport = options.transport ?? new ClusterTransport(kubeConfig);
    this.#options = options;
  }

  /** Server-side apply; returns the object as stored. */
  async apply<T = unknown>(configuration: ApplyConfiguration, options: ApplyOptions): Promise<T> {
    const path =
      objectPath(configuration) + (options.subresource === undefined ? "" : `/${options.subresource}`);
    const query = new URLSearchParams({
      fieldManager: this.#options.fieldManager ?? FIELD_MANAGER,
      force: String(options.force),
    });
    this.#options.onWrite?.("apply", configuration);
    // JSON is YAML: the API server takes either as an apply patch.
    return (await this.#request(
      "PATCH",
      `${path}?${query.toString()}`,
      { "content-type": "application/apply-patch+yaml", body: JSON.stringify(configuration) },
      options.signal,
    )) as T;
  }

  /**
   * A JSON patch (RFC 6902) of an object another writer also changes, e.g. a FeatureFlag's spec
   * a plan sets while users edit it: the patch's first operation tests metadata.resourceVersion,
   * so a change made since `resourceVersion` was read fails with 409 instead of being lost.
   */
  async patch<T = unknown>(
    ref: ObjectReference,
    resourceVersion: string,
    operations: readonly JsonPatchOperation[],
    options: RequestOptions & { subresource?: "status" | undefined } = {},
  ): Promise<T> {
    const path = objectPath(ref) + (options.subresource === undefined ? "" : `/${options.subresource}`);
    const query = new URLSearchParams({ fieldManager: this.#options.fieldManager ?? FIELD_MANAGER });
    const body = [{ op: "test", path: "/metadata/resourceVersion", value: resourceVersion }, ...operations];
    this.#options.onWrite?.("patch", ref);
    try {
      return (await this.#request(
        "PATCH",
        `${path}?${query.toString()}`,
        { "content-type": "application/json-patch+json", body: JSON.stringify(body) },
        options.signal,
      )) as T;
    } catch (error) {
      // A patch that cannot be applied (its resourceVersion test failed: the object changed
      // since it was read) is the API server's bare 422; a value the schema refuses names it.
      if (error instanceof KubeApiError && error.status === 422 && error.message.endsWith(UNAPPLICABLE_PATCH))
        throw new KubeApiError(
          409,
          `${error.message}: changed since it was read`,
          "Conflict",
          `${error.statusMessage}: changed since it was read`,
        );
      throw error;
    }
  }

  /**
   * A merge patch (RFC 7386) of the fields `body` names, with no precondition: for a write that
   * is idempotent whatever came between (a flag's spec.enabled set to a value).
   */
  async mergePatch<T = unknown>(
    ref: ObjectReference,
    body: object,
    options: RequestOptions & { subresource?: "status" | undefined } = {},
  ): Promise<T> {
    const path = objectPath(ref) + (options.subresource === undefined ? "" : `/${options.subresource}`);
    const query = new URLSearchParams({ fieldManager: this.#options.fieldManager ?? FIELD_MANAGER });
    this.#options.onWrite?.("patch", ref);
    return (await this.#request(
      "PATCH",
      `${path}?${query.toString()}`,
      { "content-type": "application/merge-patch+json", body: JSON.stringify(body) },
      options.signal,
    )) as T;
  }

  /**
   * Replaces the whole object (PUT). The object's metadata.resourceVersion is the precondition:
   * a change made since that version fails with 409, never forced over.
   */
  async replace<T = unknown>(object: ApplyConfiguration, options: RequestOptions = {}): Promise<T> {
    const query = new URLSearchParams({ fieldManager: this.#options.fieldManager ?? FIELD_MANAGER });
    this.#options.onWrite?.("replace", object);
    return (await this.#request(
      "PUT",
      `${objectPath(object)}?${query.toString()}`,
      { "content-type": "application/json", body: JSON.stringify(object) },
      options.signal,
    )) as T;
  }

  /** Creates the object; undefined when one of that name exists already (409). */
  async create<T = unknown>(
    object: ApplyConfiguration,
    options: RequestOptions = {},
  ): Promise<T | undefined> {
    const collection = collectionPath(object.apiVersion, object.kind, object.metadata.namespace);
    this.#options.onWrite?.("create", object);
    try {
      return (await this.#request(
        "POST",
        collection,
        { "content-type": "application/json", body: JSON.stringify(object) },
        options.signal,
      )) as T;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 409) return undefined;
      throw error;
    }
  }

  /**
   * The object, or undefined when it does not exist. With `metadataOnly`, only its metadata
   * (PartialObjectMetadata): for a check that must not read what an object holds.
   */
  async read<T = unknown>(
    ref: ObjectReference,
    options: RequestOptions & { metadataOnly?: boolean } = {},
  ): Promise<T | undefined> {
    try {
      const accept = options.metadataOnly === true ? METADATA_ONLY : undefined;
      return (await this.#request("GET", objectPath(ref), undefined, options.signal, accept)) as T;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** The objects of a kind in a namespace that carry the labels of `labelSelector` (`a=b,c=d`). */
  async list<T = unknown>(
    apiVersion: string,
    kind: string,
    namespace: string,
    labelSelector: string,
    options: RequestOptions = {},
  ): Promise<T[]> {
    const query = new URLSearchParams({ labelSelector });
    const path = `${collectionPath(apiVersion, kind, namespace)}?${query.toString()}`;
    return ((await this.#request("GET", path, undefined, options.signal)) as { items: T[] }).items;
  }

  /**
   * Streams the changes to the objects of a kind in a namespace that carry the labels of
   * `labelSelector`, the ones there are first (as ADDED), on this writer's connection pool: until
   * the server ends the stream (resolves), or it fails or `signal` aborts (rejects). The answer's
   * headers must come within the writer's `timeoutMs`.
   */
  watch(
    apiVersion: string,
    kind: string,
    namespace: string,
    labelSelector: string,
    signal: AbortSignal,
    onEvent: (event: WatchEvent) => void,
  ): Promise<void> {
    return this.#transport.watch(
      collectionPath(apiVersion, kind, namespace),
      { labelSelector },
      this.#options.timeoutMs,
      signal,
      onEvent,
    );
  }

  /**
   * Deletes the object; false when it was already gone. With `resourceVersion`, only that
   * version is deleted (a 409 when it changed since it was read); with `uid`, only that object
   * (never a newer one of the same name).
   */
  async remove(
    ref: ObjectReference,
    preconditions?: Preconditions,
    options: RequestOptions = {},
  ): Promise<boolean> {
    return (await this.removeAnswering(ref, preconditions, options)) !== undefined;
  }

  /**
   * Deletes as `remove` does, answering what the API server answered: the object itself while
   * finalizers hold it, else a Status; undefined when it was already gone.
   */
  async removeAnswering(
    ref: ObjectReference,
    preconditions?: Preconditions,
    options: RequestOptions = {},
  ): Promise<unknown> {
    this.#options.onWrite?.("delete", ref);
    try {
      return await this.#request(
        "DELETE",
        objectPath(ref),
        {
          "content-type": "application/json",
          body: JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", preconditions }),
        },
        options.signal,
      );
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#ownsTransport) await this.#transport.close();
  }

  #request(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    pathAndQuery: string,
    payload?: Payload,
    signal?: AbortSignal,
    accept?: string,
  ): Promise<unknown> {
    return this.#transport.request(method, pathAndQuery, {
      payload,
      timeoutMs: this.#options.timeoutMs,
      signal,
      accept,
    });
  }
}
