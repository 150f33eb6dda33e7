import { errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { NotSent } from "../ui/NotSent.tsx";
import { Field } from "../ui/Field.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { AUTH_CHOICES, defaultSecretKey, type AuthChoice, type RegisterForm } from "./register-model.ts";
import { useRegisterDialog, type RegisterFields } from "./useRegisterDialog.ts";

/** The form's fields typed as text (the others are choices and boxes). */
type TextField = {
  [K in keyof RegisterForm]: RegisterForm[K] extends string ? K : never;
}[keyof RegisterForm];

/** A text input (or, `multiline`, a textarea) of the form; `field` is the API's name for it. */
function TextInput({
  fields: { form, update, problem },
  formField,
  field = formField,
  label,
  hint,
  multiline = false,
}: {
  fields: RegisterFields;
  formField: TextField;
  field?: string;
  label: string;
  hint?: string;
  multiline?: boolean;
}) {
  return (
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
}

/** The credentials' fields for how they are given: a Secret's name and key, a kubeconfig, or a token. */
function CredentialInputs({ fields }: { fields: RegisterFields }) {
  const { form } = fields;
  if (form.source === "secret") {
    return (
      <>
        <TextInput fields={fields} field="credentialRef.name" formField="secretName" label="Secret name" />
        <TextInput
          fields={fields}
          field="credentialRef.key"
          formField="secretKey"
          label="Secret key"
          hint={`empty: ${defaultSecretKey(form.authMethod)}`}
        />
      </>
    );
  }
  if (form.authMethod === "kubeconfig") {
    return (
      <TextInput
        fields={fields}
        formField="kubeconfig"
        label="Kubeconfig"
        hint="never shown again, logged or audited"
        multiline
      />
    );
  }
  return (
    <>
      <TextInput
        fields={fields}
        formField="token"
        label="Token"
        hint="never shown again, logged or audited"
      />
      <TextInput
        fields={fields}
        formField="caData"
        label="CA certificate (base64)"
        hint="the API server's certificate-authority-data: svc sends the token only to a server it verifies"
      />
    </>
  );
}

/** How svc authenticates to the cluster, and where the credentials come from. */
function CredentialFields({ fields }: { fields: RegisterFields }) {
  const { form, update } = fields;
  return (
    <>
      <Field label="Authentication" problem={errorForField(fields.error, "authMethod")}>
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
      <CredentialInputs fields={fields} />
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
    </>
  );
}

/** Register a remote cluster (admins): its address, how to reach it, and what svc manages there. */
export function RegisterClusterDialog() {
  const { open, onOpenChange, submit, pending, ready, refused, fields } = useRegisterDialog();
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
      onOpenChange={onOpenChange}
      onSubmit={submit}
      submitLabel={["Register", "Registering…"]}
      pending={pending}
      canSubmit={ready}
    >
      <TextInput
        fields={fields}
        formField="id"
        label="Cluster id"
        hint="lowercase letters, digits and '-'; flags name their cluster by it"
      />
      <TextInput fields={fields} formField="displayName" label="Display name" />
      <TextInput fields={fields} formField="apiServer" label="API server URL" />
      <CredentialFields fields={fields} />
      <TextInput
        fields={fields}
        formField="namespaces"
        label="Namespaces"
        hint="comma-separated; empty: all but system namespaces"
      />
      <TextInput fields={fields} formField="resyncPeriod" label="Resync period" hint="e.g. 5m; empty: 300s" />
      <TextInput fields={fields} formField="labels" label="Labels" hint="one key=value per line" multiline />
      <NotSent reasons={refused} />
      <ErrorMessage error={fields.error} />
    </FormDialog>
  );
}
