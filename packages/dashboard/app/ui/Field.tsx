import { useId, type ReactNode } from "react";

/** What a field's control needs to be named by its label and described by its hint and problem. */
export interface FieldControlProps {
  id: string;
  "aria-invalid": boolean;
  "aria-describedby": string;
}

/**
 * A labelled form field: the label names only the control (the hint and the problem describe
 * it), so the control is found by its label alone.
 */
export function Field({
  label,
  hint,
  problem,
  children,
}: {
  label: string;
  hint?: ReactNode;
  /** What is wrong with the value (typed or as the API said), shown under it. */
  problem?: string | undefined;
  children: (control: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        "aria-invalid": problem !== undefined,
        "aria-describedby": `${id}-hint ${id}-problem`,
      })}
      {hint !== undefined && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {problem !== undefined && (
        <span className="field-problem" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </div>
  );
}
