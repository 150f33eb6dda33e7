import { Link, useSearchParams } from "react-router";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { emptyForm, JSON_CHANGE_FIELDS, type Problems, type RolloutForm } from "./form-model.ts";
import { useRolloutEditor, type UpdateRollout } from "./useRolloutEditor.ts";
import { WaveFields, type ProblemOf } from "./WaveFields.tsx";

/** What each section of the form reads and changes. */
interface RolloutPartProps {
  form: RolloutForm;
  update: UpdateRollout;
  problem: ProblemOf;
}

/** The FeatureFlag the plan changes, and the plan's name. */
function FlagSection({ form, update, problem }: RolloutPartProps) {
  return (
    <section className="card" aria-label="Flag">
      <h2>Flag</h2>
      <p className="hint">
        The FeatureFlag the plan changes, by namespace and name, in every cluster of its waves.
      </p>
      <div className="form-grid">
        <Field label="Flag namespace" problem={problem("flag.namespace")}>
          {(control) => (
            <input
              {...control}
              autoComplete="off"
              value={form.namespace}
              onChange={(event) => {
                update({ namespace: event.target.value }, "flag.namespace");
              }}
            />
          )}
        </Field>
        <Field label="Flag name" problem={problem("flag.name") ?? problem("flag")}>
          {(control) => (
            <input
              {...control}
              autoComplete="off"
              value={form.flagName}
              onChange={(event) => {
                update({ flagName: event.target.value }, "flag.name");
              }}
            />
          )}
        </Field>
        <Field
          label="Plan name"
          hint="Optional; default: the flag's name and 5 random characters."
          problem={problem("name")}
        >
          {(control) => (
            <input
              {...control}
              autoComplete="off"
              value={form.name}
              onChange={(event) => {
                update({ name: event.target.value }, "name");
              }}
            />
          )}
        </Field>
      </div>
    </section>
  );
}

/** The new value, enabled state and JSON fields the plan writes. */
function ChangeSection({ form, update, problem }: RolloutPartProps) {
  return (
    <section className="card" aria-label="Change">
      <h2>Change</h2>
      <div className="form-grid">
        <Field
          label="New value"
          hint="defaultValue, written as the flag stores it (true, 42, text, JSON); empty: unchanged."
        >
          {(control) => (
            <input
              {...control}
              autoComplete="off"
              value={form.defaultValue}
              onChange={(event) => {
                update({ defaultValue: event.target.value }, "change");
              }}
            />
          )}
        </Field>
        <Field label="Enabled">
          {(control) => (
            <select
              {...control}
              value={form.enabled}
              onChange={(event) => {
                update({ enabled: event.target.value as RolloutForm["enabled"] }, "change");
              }}
            >
              <option value="keep">unchanged</option>
              <option value="on">turn on</option>
              <option value="off">turn off</option>
            </select>
          )}
        </Field>
      </div>
      <Field
        label="Variants and targeting (JSON)"
        hint={`Optional: an object of ${JSON_CHANGE_FIELDS.join(", ")} to set as well.`}
        problem={problem("change")}
      >
        {(control) => (
          <textarea
            {...control}
            rows={4}
            spellCheck={false}
            className="mono"
            placeholder='{"variants": {"on": "true", "off": "false"}, "defaultVariant": "on"}'
            value={form.json}
            onChange={(event) => {
              update({ json: event.target.value }, "change");
            }}
          />
        )}
      </Field>
    </section>
  );
}

function WavesSection({ form, update, problem }: RolloutPartProps) {
  return (
    <section aria-label="Waves">
      <h2>Waves</h2>
      <p className="hint">
        Applied in order; a wave starts when the one before it has baked and its workloads stayed healthy. A
        failed gate rolls every applied wave back.
      </p>
      <WaveFields
        waves={form.waves}
        problem={problem}
        onChange={(waves, field) => {
          update({ waves }, field);
        }}
      />
      {problem("waves") !== undefined && (
        <p className="error" role="alert">
          {problem("waves")}
        </p>
      )}
    </section>
  );
}

function StartSection({ form, update, problem }: RolloutPartProps) {
  return (
    <section className="card" aria-label="Start">
      <Field
        label="Start time"
        hint="Optional, in your time zone; empty: the first wave starts at once."
        problem={problem("startAt")}
      >
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            value={form.startAt}
            onChange={(event) => {
              update({ startAt: event.target.value }, "startAt");
            }}
          />
        )}
      </Field>
    </section>
  );
}

/** Why the plan was not created: the API's refusal (what no field took), or the form's problems. */
function SaveFeedback({
  error,
  placed,
  problems,
}: {
  error: unknown;
  /** The API's 400 placed by field; "" is what no field took. */
  placed: Map<string, string> | undefined;
  /** The form's problems, once a save was tried with them. */
  problems: Problems | undefined;
}) {
  return (
    <>
      {placed === undefined ? (
        <ErrorMessage error={error} />
      ) : (
        <p className="error" role="alert">
          {placed.get("") ?? "The API refused the plan: see the fields marked above."}
        </p>
      )}
      {problems !== undefined && (
        <p className="error" role="alert">
          Some fields need attention:{" "}
          {Object.entries(problems)
            .map(([field, text]) => (field === "" ? text : `${field}: ${text}`))
            .join("; ")}
        </p>
      )}
    </>
  );
}

function FormActions({ pending }: { pending: boolean }) {
  return (
    <div className="form-actions">
      <button type="submit" className="primary" disabled={pending}>
        {pending ? "Creating…" : "Create rollout"}
      </button>
      <Link to="/rollouts" className="button">
        Cancel
      </Link>
    </div>
  );
}

function RolloutEditor({ initial }: { initial: RolloutForm }) {
  const { form, update, problem, problems, ready, submitted, placed, create, save } =
    useRolloutEditor(initial);
  return (
    <form onSubmit={save} noValidate aria-label="New rollout">
      <FlagSection form={form} update={update} problem={problem} />
      <ChangeSection form={form} update={update} problem={problem} />
      <WavesSection form={form} update={update} problem={problem} />
      <StartSection form={form} update={update} problem={problem} />
      <SaveFeedback
        error={create.error}
        placed={placed}
        problems={submitted && !ready ? problems : undefined}
      />
      <FormActions pending={create.isPending} />
    </form>
  );
}

/** "New rollout": `?namespace=&name=` fill in the flag (a link from a flag's page). */
export function NewRolloutPage() {
  const [params] = useSearchParams();
  return (
    <>
      <PageHeader title="New rollout" />
      <RolloutEditor initial={emptyForm(params.get("namespace") ?? "", params.get("name") ?? "")} />
    </>
  );
}
