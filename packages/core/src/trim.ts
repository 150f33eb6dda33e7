/**
 * What an informer cache keeps of each object: a transform per kind, applied to every listed
 * or watched object before it enters the cache (client-go's TransformFunc). A cached workload
 * keeps exactly the fields of WorkloadObject that planning, the workload views and their
 * health read; everything else (managedFields, the last-applied annotation, probes, resources,
 * commands, status conditions...) is most of a workload's size and is read by nobody.
 * docs/operator.md "Trimmed caches" lists what is kept; a new reader of a field adds it here.
 */
import { configMapVolumeName } from "./delivery/delivery-state.ts";
import type { FeatureFlagResource } from "./flags/flag-resource.ts";
import { touchesSpec } from "./flags/flag-view.ts";
import type { ManagedFieldsEntry, ObjectMeta } from "./kubernetes/object-meta.ts";
import {
  SIDECAR_CONTAINER_NAME,
  type Container,
  type EnvVar,
  type PodSpec,
  type Volume,
  type WorkloadObject,
} from "./kubernetes/workload.ts";

/** kubectl's copy of the whole object as last applied: as large as the object, read by nobody. */
export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
/** The annotations svc reads on workloads and pod templates are all in its own domain. */
const SVC_ANNOTATION_PREFIX = "svc.io/";

/** The object without its undefined fields: an absent field takes no room in the cache. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

function nonEmpty<T>(list: readonly T[] | undefined): T[] | undefined {
  return list === undefined || list.length === 0 ? undefined : [...list];
}

function annotationsWhere(
  annotations: Readonly<Record<string, string>> | undefined,
  keep: (key: string) => boolean,
): Record<string, string> | undefined {
  if (annotations === undefined) return undefined;
  const kept = Object.entries(annotations).filter(([key]) => keep(key));
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

const isSvcAnnotation = (key: string) => key.startsWith(SVC_ANNOTATION_PREFIX);

/** A workload's metadata: its identity, version, labels, svc's annotations and deletion. */
function workloadMetadata(metadata: ObjectMeta): ObjectMeta {
  return compact({
    name: metadata.name,
    namespace: metadata.namespace,
    uid: metadata.uid,
    resourceVersion: metadata.resourceVersion,
    generation: metadata.generation,
    deletionTimestamp: metadata.deletionTimestamp,
    finalizers: nonEmpty(metadata.finalizers),
    labels: metadata.labels,
    annotations: annotationsWhere(metadata.annotations, isSvcAnnotation),
  });
}

function envVar({ name, value, valueFrom }: EnvVar): EnvVar {
  return compact({ name, value, valueFrom });
}

/**
 * A container as the views (name, image, env, references) and planning (env, svc's mounts, the
 * sidecar's port) read it. Only the mounts of svc's ConfigMap volumes are ever read.
 */
function container(c: Container, svcVolumes: ReadonlySet<string>): Container {
  const envFrom = c.envFrom
    ?.map(({ configMapRef, secretRef }) =>
      compact({
        configMapRef: configMapRef && compact({ name: configMapRef.name }),
        secretRef: secretRef && compact({ name: secretRef.name }),
      }),
    )
    .filter((ref) => ref.configMapRef !== undefined || ref.secretRef !== undefined);
  const volumeMounts = c.volumeMounts
    ?.filter((m) => svcVolumes.has(m.name))
    .map(({ name, mountPath, readOnly }) => compact({ name, mountPath, readOnly }));
  const ports =
    c.name === SIDECAR_CONTAINER_NAME
      ? c.ports?.map(({ containerPort, name }) => compact({ containerPort, name }))
      : undefined;
  return compact({
    name: c.name,
    image: c.image,
    env: nonEmpty(c.env?.map(envVar)),
    envFrom: nonEmpty(envFrom),
    volumeMounts: nonEmpty(volumeMounts),
    ports: nonEmpty(ports),
    restartPolicy: c.restartPolicy,
  });
}

/** A volume by what the views and planning read: the ConfigMaps and Secrets it names. */
function volume(v: Volume): Volume | undefined {
  const sources = v.projected?.sources
    ?.map(({ configMap, secret }) =>
      compact({
        configMap: configMap && compact({ name: configMap.name }),
        secret: secret && compact({ name: secret.name }),
      }),
    )
    .filter((s) => s.configMap !== undefined || s.secret !== undefined);
  const kept = compact({
    name: v.name,
    configMap: v.configMap && compact({ name: v.configMap.name }),
    secret: v.secret && compact({ secretName: v.secret.secretName }),
    projected: sources === undefined || sources.length === 0 ? undefined : { sources },
  });
  return Object.keys(kept).length > 1 ? kept : undefined;
}

function podSpec(spec: PodSpec): PodSpec {
  const volumes = (spec.volumes ?? []).flatMap((v) => volume(v) ?? []);
  const svcVolumes = new Set(
    volumes.flatMap((v) =>
      v.configMap?.name !== undefined && v.name === configMapVolumeName(v.configMap.name) ? [v.name] : [],
    ),
  );
  return compact({
    containers: spec.containers.map((c) => container(c, svcVolumes)),
    initContainers: nonEmpty(spec.initContainers?.map((c) => container(c, svcVolumes))),
    volumes: nonEmpty(volumes),
    serviceAccountName: spec.serviceAccountName,
  });
}

/** A Deployment, StatefulSet or DaemonSet as the API sends it, reduced to WorkloadObject. */
export function trimWorkload(object: WorkloadObject): WorkloadObject {
  const { metadata, spec, status } = object;
  const template = spec?.template;
  return compact({
    metadata: metadata && workloadMetadata(metadata),
    spec:
      spec &&
      compact({
        replicas: spec.replicas,
        selector: compact({ matchLabels: spec.selector.matchLabels }),
        template: compact({
          metadata:
            template?.metadata &&
            compact({
              labels: template.metadata.labels,
              annotations: annotationsWhere(template.metadata.annotations, isSvcAnnotation),
            }),
          spec: template?.spec && podSpec(template.spec),
        }),
      }),
    status:
      status &&
      compact({
        readyReplicas: status.readyReplicas,
        numberReady: status.numberReady,
        desiredNumberScheduled: status.desiredNumberScheduled,
      }),
  });
}

/** Any object without managedFields and the last-applied annotation, which nobody reads. */
export function withoutBookkeeping<T extends { metadata?: ObjectMeta | undefined }>(object: T): T {
  const { metadata } = object;
  if (metadata === undefined) return object;
  const rest = { ...metadata };
  delete rest.managedFields;
  const annotations = annotationsWhere(metadata.annotations, (key) => key !== LAST_APPLIED_ANNOTATION);
  return { ...object, metadata: compact({ ...rest, annotations }) };
}

/** A spec-touching entry reduced to what flagUpdatedAt reads: that it touched spec, and when. */
const SPEC_TOUCHED = Object.freeze({ "f:spec": Object.freeze({}) });

/**
 * A FeatureFlag without the last-applied annotation, and with managedFields reduced to the
 * entries flagUpdatedAt reads (the managers of spec fields, and when they wrote): their field
 * sets are most of a flag's size.
 */
export function trimFlag(flag: FeatureFlagResource): FeatureFlagResource {
  const managedFields = (flag.metadata.managedFields ?? [])
    .filter(touchesSpec)
    .map(({ manager, operation, time }): ManagedFieldsEntry =>
      compact({ manager, operation, time, fieldsV1: SPEC_TOUCHED }),
    );
  const trimmed = withoutBookkeeping(flag);
  return {
    ...trimmed,
    metadata: { ...trimmed.metadata, ...(managedFields.length === 0 ? {} : { managedFields }) },
  };
}
