import { useState, type SyntheticEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ApiError } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import {
  bodyOf,
  emptyForm,
  formProblems,
  JSON_CHANGE_FIELDS,
  placeApiError,
  problemKeys,
  type RolloutForm,
} from "./form-model.ts";
import { useCreateRollout } from "./queries.ts";
import { rolloutHref } from "./rollout-model.ts";
import { WaveFields } from "./WaveFields.tsx";

function RolloutEditor({ initial }: { initial: RolloutForm }) {
  const navigate = useNavigate();
  const create = useCreateRollout();
  const [form, setForm] = useState(initial);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const problems = formProblems(form);
  const ready = Object.keys(problems).length === 0;
  const update = (patch: Partial<RolloutForm>, field: string = Object.keys(patch)[0] ?? "") => {
    setForm((previous) => ({ ...previous, ...patch }));
    setTouched((previous) => new Set([...previous, field]));
  };
  // The API's 400 names fields: each part shows under the field it names; the rest above the buttons.
  const placed =
    create.error instanceof ApiError && create.error.status === 400
      ? placeApiError(create.error.message, problemKeys(form))
      : undefined;
  // The form's own problem once the user has been there (or tried to save); else the API's.
  const problem = (field: string) => {
    const own = problems[field];
    if (own !== undefined && (submitted || touched.has(field))) return `${field}: ${own}`;
    return placed?.get(field);
  };

  const save = (event: SyntheticEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!ready) return;
    create.mutate(bodyOf(form), {
      onSuccess: (view) => {
        void navigate(rolloutHref(view.name));
      },
    });
  };

  return (
    <form onSubmit={save} noValidate aria-label="New rollout">
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
      {placed === undefined ? (
        <ErrorMessage error={create.error} />
      ) : (
        <p className="error" role="alert">
          {placed.get("") ?? "The API refused the plan: see the fields marked above."}
        </p>
      )}
      {submitted && !ready && (
        <p className="error" role="alert">
          Some fields need attention:{" "}
          {Object.entries(problems)
            .map(([field, text]) => `${field}: ${text}`)
            .join("; ")}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create rollout"}
        </button>
        <Link to="/rollouts" className="button">
          Cancel
        </Link>
      </div>
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
