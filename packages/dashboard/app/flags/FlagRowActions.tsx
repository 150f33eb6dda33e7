import type { FlagView } from "@svc/core/browser";
import { Switch } from "radix-ui";
import { useCan } from "../session/session.tsx";
import { ConfirmDialog } from "../ui/ConfirmDialog.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { useDeleteFlag, useToggleFlag } from "./queries.ts";

/**
 * A flag's on/off state: a switch for roles that may toggle (the new state shows at once and
 * rolls back with the API's message if the toggle fails), plain text for the others.
 */
export function FlagEnabledSwitch({ flag }: { flag: FlagView }) {
  const can = useCan();
  const toggle = useToggleFlag();
  if (!can("POST /api/v1/flags/{namespace}/{name}/toggle")) {
    return <span className={`badge ${flag.enabled ? "ok" : ""}`}>{flag.enabled ? "On" : "Off"}</span>;
  }
  // While the toggle is under way, the state asked for; then the flag's own.
  const checked = toggle.isPending ? toggle.variables.enabled : flag.enabled;
  return (
    <span className="switch-cell">
      <Switch.Root
        className="switch"
        checked={checked}
        disabled={toggle.isPending}
        aria-label={`Enabled ${flag.name}`}
        onCheckedChange={(enabled) => {
          toggle.mutate({ address: flag, enabled });
        }}
      >
        <Switch.Thumb className="switch-thumb" />
      </Switch.Root>
      <ErrorMessage error={toggle.error} />
    </span>
  );
}

/** Delete, offered only to the roles the API lets delete, after a confirmation naming the flag. */
export function DeleteFlagButton({ flag, onDeleted }: { flag: FlagView; onDeleted?: () => void }) {
  const can = useCan();
  const remove = useDeleteFlag();
  if (!can("DELETE /api/v1/flags/{namespace}/{name}")) return null;
  return (
    <ConfirmDialog
      trigger={
        <button type="button" className="quiet" aria-label={`Delete ${flag.name}`}>
          Delete
        </button>
      }
      title={`Delete flag ${flag.name}?`}
      description={
        <p>
          The FeatureFlag{" "}
          <code>
            {flag.namespace}/{flag.name}
          </code>{" "}
          is removed from cluster <strong>{flag.clusterId}</strong>, and the operator withdraws its value from
          every workload it was delivered to. This cannot be undone.
        </p>
      }
      confirmLabel="Delete flag"
      onConfirm={async () => {
        await remove.mutateAsync(flag);
        onDeleted?.();
      }}
    />
  );
}
