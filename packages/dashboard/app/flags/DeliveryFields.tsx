import {
  DELIVERY_KINDS,
  defaultEnvVarName,
  DEFAULT_SIDECAR_PORT,
  type DeliveryKind,
} from "@svc/core/browser";
import { RadioGroup } from "radix-ui";
import { Field } from "../ui/Field.tsx";
import { SelectorEditor } from "./editors.tsx";
import { selectorField, type FlagForm } from "./form-model.ts";

/** What each part of the delivery fields reads and changes. */
interface DeliveryPartProps {
  form: FlagForm;
  update: (patch: Partial<FlagForm>) => void;
  problem: (field: string) => string | undefined;
}

const KIND_LABEL: Record<DeliveryKind, { title: string; hint: string }> = {
  envVar: { title: "Environment variable", hint: "set in every container; a change rolls the workload" },
  configMap: {
    title: "ConfigMap key",
    hint: "mounted as a file; a change reaches pods without a restart (about a minute)",
  },
  sidecar: {
    title: "Sidecar",
    hint: "an in-pod HTTP server with a live change stream; changes never restart pods",
  },
};

function KindChoice({ form, update }: Omit<DeliveryPartProps, "problem">) {
  return (
    <RadioGroup.Root
      className="radio-group"
      aria-label="Delivery kind"
      value={form.kind}
      onValueChange={(value) => {
        const kind = DELIVERY_KINDS.find((k) => k === value);
        if (kind !== undefined) update({ kind });
      }}
    >
      {DELIVERY_KINDS.map((kind) => (
        <label key={kind} className="radio">
          <RadioGroup.Item value={kind} className="radio-item">
            <RadioGroup.Indicator className="radio-indicator" />
          </RadioGroup.Item>
          <span>
            <strong>{KIND_LABEL[kind].title}</strong>
            <span className="hint"> — {KIND_LABEL[kind].hint}</span>
          </span>
        </label>
      ))}
    </RadioGroup.Root>
  );
}

/** The fields of the chosen delivery kind. */
function KindFields({ form, update, problem }: DeliveryPartProps) {
  return (
    <>
      {form.kind === "envVar" && (
        <Field
          label="Variable name"
          hint={`empty: ${form.name === "" ? "FLAG_ and the flag name" : defaultEnvVarName(form.name)}`}
          problem={problem("delivery.envVar.name")}
        >
          {(control) => (
            <input
              {...control}
              className="mono"
              value={form.envVarName}
              onChange={(event) => {
                update({ envVarName: event.target.value });
              }}
            />
          )}
        </Field>
      )}
      {form.kind === "configMap" && (
        <div className="form-grid">
          <Field label="ConfigMap name" problem={problem("delivery.configMap.configMapName")}>
            {(control) => (
              <input
                {...control}
                value={form.configMapName}
                onChange={(event) => {
                  update({ configMapName: event.target.value });
                }}
              />
            )}
          </Field>
          <Field label="Key" problem={problem("delivery.configMap.key")}>
            {(control) => (
              <input
                {...control}
                value={form.configMapKey}
                onChange={(event) => {
                  update({ configMapKey: event.target.value });
                }}
              />
            )}
          </Field>
        </div>
      )}
      {form.kind === "sidecar" && (
        <Field
          label="Sidecar port"
          hint={`empty: ${DEFAULT_SIDECAR_PORT}`}
          problem={problem("delivery.sidecar.port")}
        >
          {(control) => (
            <input
              {...control}
              inputMode="numeric"
              value={form.sidecarPort}
              onChange={(event) => {
                update({ sidecarPort: event.target.value });
              }}
            />
          )}
        </Field>
      )}
    </>
  );
}

/** The delivery kind, its own fields, and the label selector. */
export function DeliveryFields({ form, update, problem }: DeliveryPartProps) {
  return (
    <fieldset className="delivery">
      <legend>Delivery</legend>
      <KindChoice form={form} update={update} />
      <KindFields form={form} update={update} problem={problem} />
      <SelectorEditor
        rows={form.labels}
        onChange={(labels) => {
          update({ labels });
        }}
        problem={problem(selectorField(form.kind))}
      />
    </fieldset>
  );
}
