import { useState } from "react";
import { errorForField } from "../api/client.ts";
import { useRegisterCluster } from "./queries.ts";
import {
  EMPTY_REGISTER_FORM,
  registerBody,
  registerProblems,
  registerRefusals,
  type RegisterForm,
} from "./register-model.ts";

/** What each part of the registration form reads and changes. */
export interface RegisterFields {
  form: RegisterForm;
  update: (patch: Partial<RegisterForm>) => void;
  /** The problem of an API field: the form's own once its input was touched, else the API's. */
  problem: (field: string, formField: keyof RegisterForm) => string | undefined;
  /** The API's refusal of the last registration. */
  error: unknown;
}

/** The registration dialog's state: open or not, the form as typed, and the request. */
export function useRegisterDialog() {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<RegisterForm>(EMPTY_REGISTER_FORM);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const register = useRegisterCluster();
  const problems = registerProblems(form);
  const refusals = registerRefusals(form);
  const update = (patch: Partial<RegisterForm>) => {
    setForm((previous) => ({ ...previous, ...patch }));
    setTouched((previous) => new Set([...previous, ...Object.keys(patch)]));
  };
  const problem = (field: string, formField: keyof RegisterForm) =>
    (touched.has(formField) ? problems[field] : undefined) ?? errorForField(register.error, field);
  const clear = () => {
    setForm(EMPTY_REGISTER_FORM);
    setTouched(new Set());
  };
  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) {
      clear();
      register.reset();
    }
  };
  const submit = () => {
    register.mutate(registerBody(form), {
      onSuccess: () => {
        setOpen(false);
        clear();
      },
    });
  };
  const fields: RegisterFields = { form, update, problem, error: register.error };
  return {
    open,
    onOpenChange,
    submit,
    pending: register.isPending,
    ready: Object.keys(problems).length === 0 && refusals.length === 0,
    /** Why the API's schema would refuse the body, when no field's own problem says it. */
    refused: refusals,
    fields,
  };
}
