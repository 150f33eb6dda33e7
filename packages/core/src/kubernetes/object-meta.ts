/**
 * The part of Kubernetes' ObjectMeta that svc reads, structurally: client-node's V1ObjectMeta
 * (timestamps as Dates) and plain JSON from a custom-object call (timestamps as strings) both
 * fit. Imports nothing.
 */

/** One entry of metadata.managedFields. */
export interface ManagedFieldsEntry {
  manager?: string | undefined;
  operation?: string | undefined;
  subresource?: string | undefined;
  time?: string | Date | undefined;
  fieldsV1?: object | undefined;
}

export interface ObjectMeta {
  name?: string | undefined;
  namespace?: string | undefined;
  resourceVersion?: string | undefined;
  uid?: string | undefined;
  generation?: number | undefined;
  creationTimestamp?: string | Date | undefined;
  deletionTimestamp?: string | Date | undefined;
  labels?: Readonly<Record<string, string>> | undefined;
  annotations?: Readonly<Record<string, string>> | undefined;
  finalizers?: readonly string[] | undefined;
  managedFields?: readonly ManagedFieldsEntry[] | undefined;
}
