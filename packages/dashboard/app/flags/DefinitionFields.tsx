import type { FlagCreateBody } from "@svc/core/browser";
import { NamespaceSelect } from "../clusters/NamespaceSelect.tsx";
import { useClusters } from "../clusters/queries.ts";
import { useAccess } from "../session/session.tsx";
import { Field } from "../ui/Field.tsx";
import { TypeSelect, ValueEditor, jsonHint } from "./editors.tsx";
import { valueForType, type FlagForm } from "./form-model.ts";

/** What each part of the flag form reads and changes. */
interface FormPartProps {
  form: FlagForm;
  update: (patch: Partial<FlagForm>) => void;
  problem: (field: string) => string | undefined;
}

function IdentityFields({ form, update, problem, editing }: FormPartProps & { editing: boolean }) {
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

/** The type (a change converts the value and the variants' values) and whether the flag is on. */
function TypeAndEnabledFields({ form, update, problem }: FormPartProps) {
  return (
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
  );
}

/**
 * What the flag is: where it lives and its name (fixed once created), its description, type,
 * and value (the default variant's, once it has variants).
 */
export function DefinitionFields({
  form,
  update,
  problem,
  editing,
  defaultValue,
}: FormPartProps & {
  editing: boolean;
  /** The value the body sends (the default variant's when there are variants). */
  defaultValue: FlagCreateBody["defaultValue"];
}) {
  return (
    <div className="card">
      <IdentityFields form={form} update={update} problem={problem} editing={editing} />
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
      <TypeAndEnabledFields form={form} update={update} problem={problem} />
      {form.targeting.variants.length > 0 ? (
        <p className="hint">
          Value: the default variant&apos;s, <code>{defaultValue}</code> ({form.targeting.defaultVariant}).
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
  );
}
