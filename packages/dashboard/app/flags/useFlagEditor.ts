import type { FlagView } from "@svc/core/browser";
import { useState, type SyntheticEvent } from "react";
import { useNavigate } from "react-router";
import { ApiError, errorForField } from "../api/client.ts";
import { bodyFromForm, evaluationDraft, formProblems, selectorField, type FlagForm } from "./form-model.ts";
import { flagHref } from "./list-model.ts";
import { useCreateFlag, useUpdateFlag, type FlagAddress } from "./queries.ts";

/**
 * The flag editor's state: the form as typed, what is wrong with it, the body it would send,
 * and saving it (a create without `opened`, else an update of that version).
 */
export function useFlagEditor(opened: FlagView | undefined, initial: FlagForm) {
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

  return {
    flag,
    form,
    update,
    problem,
    problems,
    ready,
    submitted,
    body,
    draft,
    address,
    mutation,
    conflict,
    save,
  };
}
