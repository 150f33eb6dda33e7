import { useState } from "react";
import { errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { useRegisterCluster } from "./queries.ts";
import {
  AUTH_CHOICES,
  defaultSecretKey,
  EMPTY_REGISTER_FORM,
  registerBody,
  registerProblems,
  type AuthChoice,
  type RegisterForm,
} from "./register-model.ts";

/** Register a remote cluster (admins): its address, how to reach it, and what svc manages there. */
export function RegisterClusterDialog() {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<RegisterForm>(EMPTY_REGISTER_FORM);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const register = useRegisterCluster();
  const problems = registerProblems(form);
  const update = (patch: Partial<RegisterForm>) => {
    setForm((previous) => ({ ...previous, ...patch }));
    setTouched((previous) => new Set([...previous, ...Object.keys(patch)]));
  };
  /** The form's fields typed as text (the others are choices and boxes). */
  type TextField = {
    [K in keyof RegisterForm]: RegisterForm[K] extends string ? K : never;
  }[keyof RegisterForm];
  const problem = (field: string, formField: keyof RegisterForm) =>
    (touched.has(formField) ? problems[field] : undefined) ?? errorForField(register.error, field);
  const text = (field: string, formField: TextField, label: string, hint?: string, multiline = false) => (
    <Field label={label} hint={hint} problem={problem(field, formField)}>
      {(control) =>
        multiline ? (
          <textarea
            {...control}
            rows={5}
            spellCheck={false}
            value={form[formField]}
            onChange={(event) => {
              update({ [formField]: event.target.value });
            }}
          />
        ) : (
          <input
            {...control}
            autoComplete="off"
            value={form[formField]}
            onChange={(event) => {
              update({ [formField]: event.target.value });
            }}
          />
        )
      }
    </Field>
  );

  return (
    <FormDialog
      trigger={
        <button type="button" className="primary">
          Register cluster
        </button>
      }
      title="Register a cluster"
      description="svc connects with these credentials, installs the FeatureFlag CRD there when missing, and reports the cluster's status."
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) {
          setForm(EMPTY_REGISTER_FORM);
          setTouched(new Set());
          register.reset();
        }
      }}
      onSubmit={() => {
        register.mutate(registerBody(form), {
          onSuccess: () => {
            setOpen(false);
            setForm(EMPTY_REGISTER_FORM);
            setTouched(new Set());
          },
        });
      }}
      submitLabel={["Register", "Registering…"]}
      pending={register.isPending}
      canSubmit={Object.keys(problems).length === 0}
    >
      {text("id", "id", "Cluster id", "lowercase letters, digits and '-'; flags name their cluster by it")}
      {text("displayName", "displayName", "Display name")}
      {text("apiServer", "apiServer", "API server URL")}
      <Field label="Authentication" problem={errorForField(register.error, "authMethod")}>
        {(control) => (
          <select
            {...control}
            value={form.authMethod}
            onChange={(event) => {
              const method = event.target.value as AuthChoice;
              update({ authMethod: method, secretKey: "" });
            }}
          >
            {Object.entries(AUTH_CHOICES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset className="radio-row">
        <legend>Credentials</legend>
        {(["inline", "secret"] as const).map((source) => (
          <label key={source}>
            <input
              type="radio"
              name="source"
              checked={form.source === source}
              onChange={() => {
                update({ source });
              }}
            />{" "}
            {source === "inline" ? "Paste them here (stored in a Secret)" : "A Secret in svc's namespace"}
          </label>
        ))}
      </fieldset>
      {form.source === "secret" ? (
        <>
          {text("credentialRef.name", "secretName", "Secret name")}
          {text(
            "credentialRef.key",
            "secretKey",
            "Secret key",
            `empty: ${defaultSecretKey(form.authMethod)}`,
          )}
        </>
      ) : form.authMethod === "kubeconfig" ? (
        text("kubeconfig", "kubeconfig", "Kubeconfig", "never shown again, logged or audited", true)
      ) : (
        <>
          {text("token", "token", "Token", "never shown again, logged or audited")}
          {text(
            "caData",
            "caData",
            "CA certificate (base64)",
            "the API server's certificate-authority-data: svc sends the token only to a server it verifies",
          )}
        </>
      )}
      <label className="radio">
        <input
          type="checkbox"
          checked={form.trustSystemCAs}
          onChange={(event) => {
            update({ trustSystemCAs: event.target.checked });
          }}
        />{" "}
        No CA certificate: verify the server with the system&apos;s public CAs
      </label>
      {text("namespaces", "namespaces", "Namespaces", "comma-separated; empty: all but system namespaces")}
      {text("resyncPeriod", "resyncPeriod", "Resync period", "e.g. 5m; empty: 300s")}
      {text("labels", "labels", "Labels", "one key=value per line", true)}
      <ErrorMessage error={register.error} />
    </FormDialog>
  );
}
