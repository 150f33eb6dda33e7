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
  allows,
  ...control
}: {
  clusterId: string;
  value: string;
  onChange: (namespace: string) => void;
  emptyLabel: string;
  /** Only the namespaces it allows are offered (where the user may create a flag). */
  allows?: (namespace: string) => boolean;
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
      {namespaces.data
        ?.filter((name) => allows?.(name) ?? true)
        .map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
    </select>
  );
}
