import { NO_GLOBAL_ROLE, ROLES, type Role, type UserRole, type UserView } from "@svc/core/browser";
import { useState } from "react";
import { errorForField } from "../api/client.ts";
import { Field } from "../ui/Field.tsx";
import { accessProblem, emptyGrant, formFromGrant, grantFormProblems, type GrantForm } from "./grant-form.ts";

/** The state behind AccessFields: the global role and the grants as typed. */
export function useAccessForm(user?: UserView) {
  const [role, setRole] = useState<UserRole>(user?.role ?? "viewer");
  const [grants, setGrants] = useState<GrantForm[]>(() => (user?.grants ?? []).map(formFromGrant));
  return {
    role,
    setRole,
    grants,
    setGrants,
    problem: accessProblem(role, grants),
    reset: () => {
      setRole(user?.role ?? "viewer");
      setGrants((user?.grants ?? []).map(formFromGrant));
    },
  };
}

export type AccessForm = ReturnType<typeof useAccessForm>;

const ROLE_CHOICES: readonly UserRole[] = [...ROLES, NO_GLOBAL_ROLE];

function GrantFields({
  index,
  grant,
  onChange,
  onRemove,
}: {
  index: number;
  grant: GrantForm;
  onChange: (patch: Partial<GrantForm>) => void;
  onRemove: () => void;
}) {
  const problems = grantFormProblems(grant);
  const text = (field: "clusters" | "clusterLabels" | "namespaces", label: string, hint: string) => (
    <Field label={label} hint={hint} problem={problems[field]}>
      {(control) => (
        <input
          {...control}
          autoComplete="off"
          value={grant[field]}
          onChange={(event) => {
            onChange({ [field]: event.target.value });
          }}
        />
      )}
    </Field>
  );
  return (
    <fieldset className="grant-fields">
      <legend>Grant {index + 1}</legend>
      <Field label="Grant role">
        {(control) => (
          <select
            {...control}
            value={grant.role}
            onChange={(event) => {
              onChange({ role: event.target.value as Role });
            }}
          >
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        )}
      </Field>
      {text("clusters", "Clusters", "Cluster ids, comma-separated; empty: every cluster.")}
      {text(
        "clusterLabels",
        "Cluster labels",
        "key=value, comma-separated: the clusters carrying all of them.",
      )}
      {text(
        "namespaces",
        "Namespaces",
        "Names or patterns such as shop-*, comma-separated; empty: every namespace.",
      )}
      <button type="button" className="quiet" onClick={onRemove}>
        Remove grant {index + 1}
      </button>
    </fieldset>
  );
}

/**
 * A user's access: a global role (SPEC.md's roles), or "none", and grants of a role over clusters
 * and namespaces; "none" needs at least one grant. Checked as typed by core's bounds.
 */
export function AccessFields({ access, apiError }: { access: AccessForm; apiError: unknown }) {
  const { role, setRole, grants, setGrants } = access;
  return (
    <>
      <Field
        label="Role"
        hint="Global: applies in every cluster and namespace. none: only the grants below."
        problem={errorForField(apiError, "role")}
      >
        {(control) => (
          <select
            {...control}
            value={role}
            onChange={(event) => {
              setRole(event.target.value as UserRole);
            }}
          >
            {ROLE_CHOICES.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        )}
      </Field>
      {grants.map((grant, index) => (
        <GrantFields
          key={index}
          index={index}
          grant={grant}
          onChange={(patch) => {
            setGrants(grants.map((g, i) => (i === index ? { ...g, ...patch } : g)));
          }}
          onRemove={() => {
            setGrants(grants.filter((_, i) => i !== index));
          }}
        />
      ))}
      <button
        type="button"
        onClick={() => {
          setGrants([...grants, emptyGrant()]);
        }}
      >
        Add grant
      </button>
      {(access.problem ?? errorForField(apiError, "grants")) !== undefined && (
        <p className="field-problem" role="alert">
          {access.problem ?? errorForField(apiError, "grants")}
        </p>
      )}
    </>
  );
}
