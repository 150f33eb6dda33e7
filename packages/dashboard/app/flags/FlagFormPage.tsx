import type { FlagView } from "@svc/core/browser";
import { useState, type SyntheticEvent } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { ApiError, errorForField } from "../api/client.ts";
import { NamespaceSelect } from "../clusters/NamespaceSelect.tsx";
import { useClusters } from "../clusters/queries.ts";
import { useAccess } from "../session/session.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { QueryState } from "../ui/states.tsx";
import { DeliveryFields } from "./DeliveryFields.tsx";
import { TypeSelect, ValueEditor, jsonHint } from "./editors.tsx";
import {
  bodyFromForm,
  evaluationDraft,
  emptyForm,
  formFromFlag,
  formProblems,
  selectorField,
  valueForType,
  type FlagForm,
} from "./form-model.ts";
import { flagHref } from "./list-model.ts";
import { PreviewPanel } from "./PreviewPanel.tsx";
import { TargetingEditor } from "./TargetingEditor.tsx";
import { TryContextPanel } from "./TryContextPanel.tsx";
import { useCreateFlag, useFlag, useUpdateFlag, type FlagAddress } from "./queries.ts";

function IdentityFields({
  form,
  update,
  problem,
  editing,
}: {
  form: FlagForm;
  update: (patch: Partial<FlagForm>) => void;
  problem: (field: string) => string | undefined;
  editing: boolean;
}) {
  const clusters = useClusters();
  const { canIn } = useAccess();
  // Only where the user's role (global or a grant) may create a flag.
  const mayCreate = (clusterId: string, namespace?: string) =>
    canIn("POST /api/v1/flags", { clusterId, ...(namespace === undefined ? {} : { namespace }) });
  if (editing) {
    return (
      <p className="hint">
        Flag <strong>{form.name}</strong> in namespace <strong>{form.namespace}</strong> of cluster{" "}
        <strong>{form.clusterId}</strong> (a flag cannot be moved or renamed).
      </p>
    );
  }
  return (
    <div className="form-grid">
      <Field label="Cluster" problem={problem("clusterId")}>
        {(control) => (
          <select
            {...control}
            value={form.clusterId}
            onChange={(event) => {
              update({ clusterId: event.target.value, namespace: "" });
            }}
          >
            <option value="">Choose a cluster</option>
            {clusters.data
              ?.filter((cluster) => mayCreate(cluster.id))
              .map((cluster) => (
                <option key={cluster.id} value={cluster.id}>
                  {cluster.displayName} ({cluster.id})
                </option>
              ))}
          </select>
        )}
      </Field>
      <Field label="Namespace" problem={problem("namespace")}>
        {(control) => (
          <NamespaceSelect
            {...control}
            clusterId={form.clusterId}
            value={form.namespace}
            emptyLabel="Choose a namespace"
            allows={(namespace) => mayCreate(form.clusterId, namespace)}
            onChange={(namespace) => {
              update({ namespace });
            }}
          />
        )}
      </Field>
      <Field label="Name" hint="lowercase letters, digits and '-'" problem={problem("name")}>
        {(control) => (
          <input
            {...control}
            autoComplete="off"
            value={form.name}
            onChange={(event) => {
              update({ name: event.target.value });
            }}
          />
        )}
      </Field>
    </div>
  );
}

/** Create (no `flag`) or edit a flag; the preview shows what saving would do before it is done. */
function FlagEditor({ flag: opened, initial }: { flag: FlagView | undefined; initial: FlagForm }) {
  const navigate = useNavigate();
  // The version the user started from, kept while the list refreshes: saving a change on top of
  // someone else's newer one is refused (409) instead of overwriting it.
  const [flag] = useState(opened);
  const create = useCreateFlag();
  const updateFlag = useUpdateFlag();
  const [form, setForm] = useState(initial);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const mutation = flag === undefined ? create : updateFlag;
  const address: FlagAddress | undefined =
    flag === undefined
      ? undefined
      : { clusterId: flag.clusterId, namespace: flag.namespace, name: flag.name };

  const problems = formProblems(form);
  const ready = Object.keys(problems).length === 0;
  const body = bodyFromForm(form);
  const draft = evaluationDraft(form);
  const update = (patch: Partial<FlagForm>) => {
    setForm((previous) => ({ ...previous, ...patch }));
    setTouched((previous) => new Set([...previous, ...Object.keys(patch)]));
  };
  // A field's own problem once the user has been there (or tried to save); else the API's.
  const fieldOf: Record<string, keyof FlagForm> = {
    defaultValue: "value",
    "delivery.envVar.name": "envVarName",
    "delivery.configMap.configMapName": "configMapName",
    "delivery.configMap.key": "configMapKey",
    "delivery.sidecar.port": "sidecarPort",
    variants: "targeting",
    defaultVariant: "targeting",
    [selectorField(form.kind)]: "labels",
  };
  const problem = (field: string) => {
    const own = problems[field];
    if (own !== undefined && (submitted || touched.has(fieldOf[field] ?? field))) return own;
    return errorForField(mutation.error, field);
  };
  const conflict =
    mutation.error instanceof ApiError && mutation.error.status === 409 && flag !== undefined
      ? { message: mutation.error.message, flag }
      : undefined;

  const save = async (event: SyntheticEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!ready) return;
    const saved =
      flag === undefined || address === undefined
        ? await create.mutateAsync(body).catch(() => undefined)
        : await updateFlag
            .mutateAsync({ address, body: { ...body, resourceVersion: flag.resourceVersion } })
            .catch(() => undefined);
    if (saved !== undefined) void navigate(flagHref(saved));
  };

  return (
    <form className="flag-form" onSubmit={(event) => void save(event)} noValidate>
      <div className="card">
        <IdentityFields form={form} update={update} problem={problem} editing={flag !== undefined} />
        <Field label="Description" problem={problem("description")}>
          {(control) => (
            <input
              {...control}
              value={form.description}
              onChange={(event) => {
                update({ description: event.target.value });
              }}
            />
          )}
        </Field>
        <div className="form-grid">
          <Field label="Type" problem={problem("type")}>
            {(control) => (
              <TypeSelect
                control={control}
                value={form.type}
                onChange={(type) => {
                  const variants = form.targeting.variants.map((row) => ({
                    ...row,
                    value: valueForType(type, row.value),
                  }));
                  update({
                    type,
                    value: valueForType(type, form.value),
                    targeting: { ...form.targeting, variants },
                  });
                }}
              />
            )}
          </Field>
          <label className="field">
            <span>Enabled</span>
            <input
              type="checkbox"
              checked={form.enabled}
              onChange={(event) => {
                update({ enabled: event.target.checked });
              }}
            />
          </label>
        </div>
        {form.targeting.variants.length > 0 ? (
          <p className="hint">
            Value: the default variant&apos;s, <code>{body.defaultValue}</code> (
            {form.targeting.defaultVariant}).
          </p>
        ) : (
          <Field label="Value" hint={jsonHint(form.type, form.value)} problem={problem("defaultValue")}>
            {(control) => (
              <ValueEditor
                control={control}
                type={form.type}
                value={form.value}
                onChange={(value) => {
                  update({ value });
                }}
              />
            )}
          </Field>
        )}
      </div>
      <div className="card">
        <TargetingEditor
          type={form.type}
          value={form.value}
          targeting={form.targeting}
          onChange={(targeting) => {
            update({ targeting });
          }}
          problem={problem}
          draft={draft}
        />
      </div>
      <TryContextPanel draft={draft} />
      <div className="card">
        <DeliveryFields form={form} update={update} problem={problem} />
      </div>
      <PreviewPanel body={body} address={address} ready={ready} />
      {conflict !== undefined ? (
        <p className="error" role="alert">
          Someone changed this flag since you opened it: {conflict.message}.{" "}
          <Link to={flagHref(conflict.flag)} reloadDocument>
            Reload it
          </Link>{" "}
          to edit the newest version.
        </p>
      ) : (
        <ErrorMessage error={mutation.error} />
      )}
      {submitted && !ready && (
        <p className="error" role="alert">
          Some fields need attention: {Object.values(problems).join("; ")}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={mutation.isPending}>
          {mutation.isPending ? "Saving…" : flag === undefined ? "Create flag" : "Save changes"}
        </button>
        <Link to={flag === undefined ? "/flags" : flagHref(flag)} className="button">
          Cancel
        </Link>
      </div>
    </form>
  );
}

export function NewFlagPage() {
  const [params] = useSearchParams();
  const initial = emptyForm(params.get("cluster") ?? "", params.get("namespace") ?? "");
  return (
    <>
      <PageHeader title="New flag" />
      <FlagEditor flag={undefined} initial={initial} />
    </>
  );
}

export function EditFlagPage() {
  const { clusterId = "", namespace = "", name = "" } = useParams();
  const flag = useFlag({ clusterId, namespace, name });
  return (
    <>
      <PageHeader title={`Edit ${name}`} />
      {/* The form starts from the flag as first loaded; later refreshes do not touch what is typed. */}
      <QueryState query={flag} what="the flag">
        {(loaded) => <FlagEditor flag={loaded} initial={formFromFlag(loaded)} />}
      </QueryState>
    </>
  );
}
