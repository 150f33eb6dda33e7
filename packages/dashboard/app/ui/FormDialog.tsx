import { Dialog } from "radix-ui";
import type { ReactNode, SyntheticEvent } from "react";

/**
 * A dialog holding one form (Radix: focus kept inside, Escape closes): title, description, the
 * fields, then Cancel and the submit button. The caller owns `open`, so it closes on success
 * only and a failed request leaves the form and its error in view.
 */
export function FormDialog({
  trigger,
  title,
  description,
  open,
  onOpenChange,
  onSubmit,
  submitLabel,
  pending,
  canSubmit,
  children,
}: {
  trigger: ReactNode;
  title: string;
  description: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSubmit: () => void;
  /** E.g. ["Create user", "Creating…"]: the button's label, and its label while pending. */
  submitLabel: readonly [string, string];
  pending: boolean;
  canSubmit: boolean;
  children: ReactNode;
}) {
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (canSubmit) onSubmit();
  };
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger asChild>{trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>{title}</Dialog.Title>
          <Dialog.Description className="hint">{description}</Dialog.Description>
          <form onSubmit={submit} aria-label={title}>
            {children}
            <div className="dialog-actions">
              <Dialog.Close asChild>
                <button type="button">Cancel</button>
              </Dialog.Close>
              <button type="submit" className="primary" disabled={pending || !canSubmit}>
                {pending ? submitLabel[1] : submitLabel[0]}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
