import { AlertDialog } from "radix-ui";
import { useState, type ReactNode, type RefObject } from "react";
import { ErrorMessage } from "./ErrorMessage.tsx";

/**
 * Asks before a destructive action. The dialog stays open while the action runs and shows its
 * error if it fails, so the user sees why nothing happened. It opens from its `trigger`, or,
 * without one, when the caller sets `open` (then `returnFocusTo` gets the focus back on close).
 */
export function ConfirmDialog({
  trigger,
  open: openAsked,
  onOpenChange,
  returnFocusTo,
  title,
  description,
  confirmLabel,
  onConfirm,
}: {
  trigger?: ReactNode;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  returnFocusTo?: RefObject<HTMLElement | null>;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
}) {
  const [ownOpen, setOwnOpen] = useState(false);
  const open = openAsked ?? ownOpen;
  const setOpen = (next: boolean) => {
    setOwnOpen(next);
    onOpenChange?.(next);
  };
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>();

  const confirm = async () => {
    setPending(true);
    setError(undefined);
    try {
      await onConfirm();
      setOpen(false);
    } catch (caught) {
      setError(caught);
    } finally {
      setPending(false);
    }
  };

  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setError(undefined);
      }}
    >
      {trigger !== undefined && <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger>}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content
          className="dialog"
          onCloseAutoFocus={(event) => {
            if (returnFocusTo?.current == null) return;
            event.preventDefault();
            returnFocusTo.current.focus();
          }}
        >
          <AlertDialog.Title>{title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div>{description}</div>
          </AlertDialog.Description>
          <ErrorMessage error={error} />
          <div className="dialog-actions">
            <AlertDialog.Cancel asChild>
              <button type="button">Cancel</button>
            </AlertDialog.Cancel>
            <button type="button" className="danger" disabled={pending} onClick={() => void confirm()}>
              {pending ? "Working…" : confirmLabel}
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
