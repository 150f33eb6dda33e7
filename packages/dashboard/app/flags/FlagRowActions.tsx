import type { FlagView } from "@svc/core/browser";
import { Switch } from "radix-ui";
import { useRef, useState } from "react";
import { useAccess } from "../session/session.tsx";
import { ConfirmDialog } from "../ui/ConfirmDialog.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { restartWarning } from "./form-model.ts";
import { previewFlag, useDeleteFlag, useToggleFlag } from "./queries.ts";

/** Which workloads turning the flag on or off would restart, by the API's dry run of that change. */
async function toggleRestartWarning(flag: FlagView, enabled: boolean): Promise<string | undefined> {
  try {
    return restartWarning((await previewFlag({ ...flag, enabled }, flag)).preview);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `Which workloads would restart could not be checked (${reason}).`;
  }
}

/**
 * A flag's on/off state: a switch for users who may toggle it (their role in its cluster and
 * namespace), plain text for the others. A toggle
 * that restarts workloads (an environment variable changes) says which and asks first, as the
 * edit form's preview would; the new state shows at once and rolls back with the API's message
 * if the toggle fails. The switch is never disabled meanwhile, so it keeps the focus.
 */
export function FlagEnabledSwitch({ flag }: { flag: FlagView }) {
  const { canIn } = useAccess();
  const toggle = useToggleFlag();
  const switchRef = useRef<HTMLButtonElement>(null);
  const [checking, setChecking] = useState<boolean | undefined>();
  const [asking, setAsking] = useState<{ enabled: boolean; warning: string } | undefined>();
  if (!canIn("POST /api/v1/flags/{namespace}/{name}/toggle", flag)) {
    return <span className={`badge ${flag.enabled ? "ok" : ""}`}>{flag.enabled ? "On" : "Off"}</span>;
  }
  const busy = toggle.isPending || checking !== undefined || asking !== undefined;
  const request = async (enabled: boolean) => {
    if (busy) return;
    toggle.reset();
    setChecking(enabled);
    const warning = await toggleRestartWarning(flag, enabled);
    setChecking(undefined);
    if (warning === undefined) toggle.mutate({ address: flag, enabled });
    else setAsking({ enabled, warning });
  };
  // While a toggle is checked, asked about or under way, the state asked for; then the flag's own.
  const checked = toggle.isPending ? toggle.variables.enabled : (checking ?? asking?.enabled ?? flag.enabled);
  const verb = asking?.enabled === true ? "on" : "off";
  return (
    <span className="switch-cell">
      <Switch.Root
        ref={switchRef}
        className="switch"
        checked={checked}
        aria-busy={busy}
        aria-label={`Enabled ${flag.name}`}
        onCheckedChange={(enabled) => {
          void request(enabled);
        }}
      >
        <Switch.Thumb className="switch-thumb" />
      </Switch.Root>
      <ErrorMessage error={toggle.error} />
      <ConfirmDialog
        open={asking !== undefined}
        onOpenChange={(open) => {
          if (!open) setAsking(undefined);
        }}
        returnFocusTo={switchRef}
        title={`Turn ${flag.name} ${verb}?`}
        description={<p>{asking?.warning}</p>}
        confirmLabel={`Turn ${verb} and restart`}
        onConfirm={async () => {
          if (asking !== undefined) await toggle.mutateAsync({ address: flag, enabled: asking.enabled });
        }}
      />
    </span>
  );
}

/** Delete, offered only where the API lets the user delete, after a confirmation naming the flag. */
export function DeleteFlagButton({ flag, onDeleted }: { flag: FlagView; onDeleted?: () => void }) {
  const { canIn } = useAccess();
  const remove = useDeleteFlag();
  if (!canIn("DELETE /api/v1/flags/{namespace}/{name}", flag)) return null;
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
