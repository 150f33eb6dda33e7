import type { SelectHTMLAttributes } from "react";
import { useNamespaces } from "./queries.ts";

/**
 * A select of a cluster's namespaces (as the API lists them: no system namespaces), with a first
 * option for "none chosen" (`emptyLabel`, value ""). Disabled until a cluster is given.
 */
export function NamespaceSelect({
  clusterId,
  value,
  onChange,
  emptyLabel,
  ...control
}: {
  clusterId: string;
  value: string;
  onChange: (namespace: string) => void;
  emptyLabel: string;
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, "value" | "onChange">) {
  const namespaces = useNamespaces(clusterId === "" ? undefined : clusterId);
  return (
    <select
      {...control}
      value={value}
      disabled={clusterId === ""}
      title={clusterId === "" ? "Choose a cluster first" : undefined}
      onChange={(event) => {
        onChange(event.target.value);
      }}
    >
      <option value="">{emptyLabel}</option>
      {namespaces.data?.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </select>
  );
}
