import type { FlagCreateBody, FlagType } from "@svc/core/browser";
import { RadioGroup } from "radix-ui";
import { useId } from "react";
import { ApiError } from "../api/client.ts";
import { Field } from "../ui/Field.tsx";
import { useDebouncedCall } from "../ui/useDebouncedCall.ts";
import { evaluateDraft } from "./queries.ts";
import {
  parsedRule,
  rolloutTargeting,
  startingVariants,
  type TargetingForm,
  type TargetingMode,
  type VariantRow,
} from "./targeting-model.ts";

const MODES: { mode: TargetingMode; title: string; hint: string }[] = [
  { mode: "none", title: "No targeting", hint: "everyone gets the default variant" },
  { mode: "rollout", title: "Percentage rollout", hint: "a share of targeting keys gets the first variant" },
  { mode: "rule", title: "JSON Logic rule", hint: "any other rule, in flagd's dialect" },
];

interface EditorProps {
  type: FlagType;
  /** The flag's value, the starting point of new variants. */
  value: string;
  targeting: TargetingForm;
  onChange: (targeting: TargetingForm) => void;
  problem: (field: string) => string | undefined;
  /** The draft the API checks a rule in (undefined while the form has other problems). */
  draft: Partial<FlagCreateBody> | undefined;
}

/** Variants, the default one, and the rule that chooses among them. */
export function TargetingEditor(props: EditorProps) {
  const { targeting, onChange } = props;
  const withVariants = (patch: Partial<TargetingForm>): TargetingForm => ({
    ...targeting,
    ...(targeting.variants.length === 0 ? startingVariants(props.type, props.value) : {}),
    ...patch,
  });
  const chooseMode = (mode: TargetingMode) => {
    if (mode === "none") {
      onChange({ ...targeting, mode });
      return;
    }
    const next = withVariants({ mode });
    const [first, second] = next.variants;
    if (mode === "rule" && targeting.ruleText === "" && first !== undefined && second !== undefined) {
      // Start from what is there: the rollout as JSON Logic, else an example naming the variants.
      const rule =
        targeting.mode === "rollout"
          ? rolloutTargeting({ variant: first.name, other: second.name, percent: targeting.rolloutPercent })
          : { if: [{ in: [{ var: "targetingKey" }, ["alice", "bob"]] }, first.name, second.name] };
      next.ruleText = JSON.stringify(rule, null, 2);
    }
    onChange(next);
  };
  return (
    <fieldset className="targeting">
      <legend>Variants and targeting</legend>
      <VariantsEditor
        {...props}
        onAdd={() => {
          onChange(withVariants({}));
        }}
      />
      <RadioGroup.Root
        className="radio-group"
        aria-label="Targeting"
        value={targeting.mode}
        onValueChange={(value) => {
          const mode = MODES.find((m) => m.mode === value)?.mode;
          if (mode !== undefined) chooseMode(mode);
        }}
      >
        {MODES.map(({ mode, title, hint }) => (
          <label key={mode} className="radio">
            <RadioGroup.Item value={mode} className="radio-item">
              <RadioGroup.Indicator className="radio-indicator" />
            </RadioGroup.Item>
            <span>
              <strong>{title}</strong>
              <span className="hint"> — {hint}</span>
            </span>
          </label>
        ))}
      </RadioGroup.Root>
      {targeting.mode === "rollout" && <RolloutSlider {...props} />}
      {targeting.mode === "rule" && <RuleEditor {...props} />}
    </fieldset>
  );
}

function VariantsEditor({ targeting, onChange, problem, onAdd }: EditorProps & { onAdd: () => void }) {
  const group = useId();
  if (targeting.variants.length === 0) {
    return (
      <div className="variants">
        <p className="hint">
          One value for everyone. Add variants to give different callers different values.
        </p>
        <button type="button" onClick={onAdd}>
          Add variants
        </button>
      </div>
    );
  }
  const set = (index: number, patch: Partial<VariantRow>) => {
    const renamed = targeting.variants[index]?.name === targeting.defaultVariant && patch.name !== undefined;
    onChange({
      ...targeting,
      variants: targeting.variants.map((row, i) => (i === index ? { ...row, ...patch } : row)),
      ...(renamed ? { defaultVariant: patch.name } : {}),
    });
  };
  const problems = [problem("variants"), problem("defaultVariant")].filter((p) => p !== undefined);
  return (
    <div className="variants" role="group" aria-label="Variants">
      {targeting.variants.map((row, index) => (
        <div className="variant-row" key={index}>
          <input
            aria-label={`Variant ${index + 1} name`}
            placeholder="name"
            value={row.name}
            onChange={(event) => {
              set(index, { name: event.target.value });
            }}
          />
          <input
            aria-label={`Variant ${index + 1} value`}
            placeholder="value"
            className="mono"
            value={row.value}
            onChange={(event) => {
              set(index, { value: event.target.value });
            }}
          />
          <label className="variant-default">
            <input
              type="radio"
              name={group}
              checked={row.name.trim() === targeting.defaultVariant}
              onChange={() => {
                onChange({ ...targeting, defaultVariant: row.name.trim() });
              }}
            />
            default
          </label>
          <button
            type="button"
            className="quiet"
            aria-label={`Remove variant ${index + 1}`}
            onClick={() => {
              onChange({ ...targeting, variants: targeting.variants.filter((_, i) => i !== index) });
            }}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => {
          onChange({ ...targeting, variants: [...targeting.variants, { name: "", value: "" }] });
        }}
      >
        Add variant
      </button>
      <p className="hint">The default variant&apos;s value is the flag&apos;s value where no rule applies.</p>
      {problems.length > 0 && <p className="field-problem">{problems.join("; ")}</p>}
    </div>
  );
}

function RolloutSlider({ targeting, onChange, problem }: EditorProps) {
  const id = useId();
  const [first, second] = targeting.variants;
  const percent = targeting.rolloutPercent;
  const own = problem("targeting");
  return (
    <div className="rollout">
      <label htmlFor={id}>
        Share of targeting keys that get <strong>{first?.name}</strong>
      </label>
      <input
        id={id}
        type="range"
        min={0}
        max={100}
        step={1}
        value={percent}
        aria-valuetext={`${percent}% ${first?.name ?? ""}`}
        onChange={(event) => {
          onChange({ ...targeting, rolloutPercent: Number(event.target.value) });
        }}
      />
      <output htmlFor={id}>
        {percent}% {first?.name}, {100 - percent}% {second?.name}
      </output>
      <p className="hint">
        flagd&apos;s <code>fractional</code>: each targetingKey stays in its bucket as the share grows.
      </p>
      {own !== undefined && <p className="field-problem">{own}</p>}
    </div>
  );
}

const checkRule = (request: string, signal: AbortSignal) =>
  evaluateDraft(JSON.parse(request) as Partial<FlagCreateBody>, {}, signal);

/** Any rule as text: its JSON syntax is checked as typed, the rule itself by the API. */
function RuleEditor({ targeting, onChange, problem, draft }: EditorProps) {
  const parsed = parsedRule(targeting.ruleText);
  const syntax = "problem" in parsed ? `targeting: ${parsed.problem}` : undefined;
  const check = useDebouncedCall(
    syntax === undefined && draft !== undefined ? JSON.stringify(draft) : undefined,
    checkRule,
  );
  const refused =
    check.status === "failed" && check.error instanceof ApiError && check.error.status === 400
      ? check.error.message
      : undefined;
  const hint =
    syntax !== undefined || draft === undefined || refused !== undefined
      ? "flagd's JSON Logic: if, ==, in, starts_with, ends_with, sem_ver, fractional, $ref"
      : check.status === "done"
        ? "The API accepts this rule."
        : check.status === "failed"
          ? `The rule could not be checked: ${check.error instanceof Error ? check.error.message : String(check.error)}`
          : "Checking the rule…";
  return (
    <Field
      label="Targeting rule (JSON Logic)"
      hint={hint}
      problem={syntax ?? refused ?? problem("targeting")}
    >
      {(control) => (
        <textarea
          {...control}
          rows={10}
          spellCheck={false}
          className="mono"
          value={targeting.ruleText}
          onChange={(event) => {
            onChange({ ...targeting, ruleText: event.target.value });
          }}
        />
      )}
    </Field>
  );
}
