import type { FlagCreateBody } from "@svc/core/browser";
import type { Evaluation } from "@svc/core/targeting/flagd";
import { useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { Loading } from "../ui/states.tsx";
import { useDebouncedCall } from "../ui/useDebouncedCall.ts";
import { evaluateDraft } from "./queries.ts";
import { jsonObjectOf } from "./targeting-model.ts";

const evaluate = (request: string, signal: AbortSignal) => {
  const { flag, context } = JSON.parse(request) as {
    flag: Partial<FlagCreateBody>;
    context: Record<string, unknown>;
  };
  return evaluateDraft(flag, context, signal);
};

/**
 * What a caller with a given context gets from the flag as drafted, answered by the API's
 * evaluator (flagd's engine, as the sidecar and the operator use it), before anything is saved.
 */
export function TryContextPanel({ draft }: { draft: Partial<FlagCreateBody> | undefined }) {
  const [targetingKey, setTargetingKey] = useState("");
  const [attributes, setAttributes] = useState("{}");
  const parsed = attributes.trim() === "" ? { value: {} } : jsonObjectOf(attributes);
  const attributesProblem = "problem" in parsed ? `attributes: ${parsed.problem}` : undefined;
  const context =
    "value" in parsed ? { ...parsed.value, ...(targetingKey === "" ? {} : { targetingKey }) } : undefined;
  const request =
    draft !== undefined && context !== undefined ? JSON.stringify({ flag: draft, context }) : undefined;
  const state = useDebouncedCall(request, evaluate);
  return (
    <section className="card try-context" aria-labelledby="try-context-title">
      <h2 id="try-context-title">Try a context</h2>
      <p className="hint">
        What a caller with this context gets from the flag as drafted here, evaluated by the API as the
        sidecar and the operator evaluate it.
      </p>
      <div className="form-grid">
        <Field label="targetingKey" hint="the user, tenant or workload that asks">
          {(control) => (
            <input
              {...control}
              className="mono"
              autoComplete="off"
              value={targetingKey}
              onChange={(event) => {
                setTargetingKey(event.target.value);
              }}
            />
          )}
        </Field>
        <Field
          label="Attributes"
          hint='a JSON object, e.g. {"email": "a@example.com"}'
          problem={attributesProblem}
        >
          {(control) => (
            <textarea
              {...control}
              rows={3}
              spellCheck={false}
              className="mono"
              value={attributes}
              onChange={(event) => {
                setAttributes(event.target.value);
              }}
            />
          )}
        </Field>
      </div>
      <div aria-live="polite">
        {draft === undefined ? (
          <p className="hint">Fix the problems above to try the flag.</p>
        ) : state.status === "idle" || state.status === "loading" ? (
          <Loading what="the evaluation" />
        ) : state.status === "failed" ? (
          <ErrorMessage error={state.error} />
        ) : (
          <EvaluationFacts evaluation={state.value} />
        )}
      </div>
    </section>
  );
}

function EvaluationFacts({ evaluation }: { evaluation: Evaluation }) {
  const facts: [string, string | undefined][] = [
    ["Value", evaluation.value === undefined ? undefined : JSON.stringify(evaluation.value)],
    ["Variant", evaluation.variant],
    ["Reason", evaluation.reason],
    [
      "Error",
      evaluation.errorCode === undefined
        ? undefined
        : `${evaluation.errorCode}: ${evaluation.errorDetails ?? ""}`,
    ],
  ];
  return (
    <dl className="facts" aria-label="Evaluation">
      {facts.flatMap(([term, detail]) =>
        detail === undefined
          ? []
          : [
              <dt key={`${term}-t`}>{term}</dt>,
              <dd key={`${term}-d`} className="mono">
                {detail}
              </dd>,
            ],
      )}
    </dl>
  );
}
