import { useState, type SyntheticEvent } from "react";
import { useNavigate } from "react-router";
import { ApiError } from "../api/client.ts";
import { bodyOf, formProblems, placeApiError, problemKeys, type RolloutForm } from "./form-model.ts";
import { useCreateRollout } from "./queries.ts";
import { rolloutHref } from "./rollout-model.ts";

/** Records a change of the form and, as touched, the field key it edits (by default its first key). */
export type UpdateRollout = (patch: Partial<RolloutForm>, field?: string) => void;

/**
 * The new rollout's state: the form as typed, what is wrong with it (its own problems and the
 * API's, each under the field it names), and creating the plan.
 */
export function useRolloutEditor(initial: RolloutForm) {
  const navigate = useNavigate();
  const create = useCreateRollout();
  const [form, setForm] = useState(initial);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const problems = formProblems(form);
  const ready = Object.keys(problems).length === 0;
  const update: UpdateRollout = (patch, field = Object.keys(patch)[0] ?? "") => {
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

  return { form, update, problem, problems, ready, submitted, placed, create, save };
}
