import { FLAG_TYPES, type FlagType } from "@svc/core/browser";
import { Switch } from "radix-ui";
import type { FieldControlProps } from "../ui/Field.tsx";
import { jsonProblem, type LabelRow } from "./form-model.ts";

/** The value editor that suits the flag's type: a switch, a number, a line of text, or JSON. */
export function ValueEditor({
  type,
  value,
  onChange,
  control,
}: {
  type: FlagType;
  value: string;
  onChange: (value: string) => void;
  control: FieldControlProps;
}) {
  switch (type) {
    case "boolean":
      return (
        <span className="switch-row">
          <Switch.Root
            {...control}
            className="switch"
            checked={value === "true"}
            onCheckedChange={(checked) => {
              onChange(String(checked));
            }}
          >
            <Switch.Thumb className="switch-thumb" />
          </Switch.Root>
          <code>{value}</code>
        </span>
      );
    case "integer":
      // Text, not type=number: a 64-bit value does not fit in a JavaScript number.
      return (
        <input
          {...control}
          inputMode="numeric"
          className="mono"
          value={value}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      );
    case "string":
      return (
        <input
          {...control}
          value={value}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      );
    case "json":
      return (
        <textarea
          {...control}
          rows={8}
          spellCheck={false}
          value={value}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      );
  }
}

export function TypeSelect({
  value,
  onChange,
  control,
}: {
  value: FlagType;
  onChange: (type: FlagType) => void;
  control: FieldControlProps;
}) {
  return (
    <select
      {...control}
      value={value}
      onChange={(event) => {
        const type = FLAG_TYPES.find((t) => t === event.target.value);
        if (type !== undefined) onChange(type);
      }}
    >
      {FLAG_TYPES.map((type) => (
        <option key={type} value={type}>
          {type}
        </option>
      ))}
    </select>
  );
}

/** JSON's own parse error, shown as the user types (the API would refuse the same text). */
export function jsonHint(type: FlagType, value: string): string | undefined {
  if (type !== "json") return undefined;
  const problem = jsonProblem(value);
  return problem === undefined ? undefined : `Not valid JSON: ${problem}`;
}

/** matchLabels as rows of key and value; a workload must carry all of them to match. */
export function SelectorEditor({
  rows,
  onChange,
  problem,
}: {
  rows: LabelRow[];
  onChange: (rows: LabelRow[]) => void;
  problem: string | undefined;
}) {
  const set = (index: number, patch: Partial<LabelRow>) => {
    onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  };
  return (
    <fieldset className="selector" aria-describedby="selector-problem">
      <legend>Label selector</legend>
      <p className="hint">
        Workloads of the namespace whose labels (or pod template's) include all of these receive the flag.
      </p>
      {rows.map((row, index) => (
        <div className="selector-row" key={index}>
          <input
            aria-label={`Label key ${index + 1}`}
            placeholder="key"
            value={row.key}
            aria-invalid={problem !== undefined}
            onChange={(event) => {
              set(index, { key: event.target.value });
            }}
          />
          <span aria-hidden="true">=</span>
          <input
            aria-label={`Label value ${index + 1}`}
            placeholder="value"
            value={row.value}
            aria-invalid={problem !== undefined}
            onChange={(event) => {
              set(index, { value: event.target.value });
            }}
          />
          <button
            type="button"
            className="quiet"
            aria-label={`Remove label ${index + 1}`}
            onClick={() => {
              onChange(rows.filter((_, i) => i !== index));
            }}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => {
          onChange([...rows, { key: "", value: "" }]);
        }}
      >
        Add label
      </button>
      {problem !== undefined && (
        <p className="field-problem" id="selector-problem">
          {problem}
        </p>
      )}
    </fieldset>
  );
}
