import { useId } from "react";
import { useClusters } from "../clusters/queries.ts";
import { Field } from "../ui/Field.tsx";
import { emptyWave, WAVES_MAX, type WaveForm } from "./form-model.ts";

/** The problem shown for a field key ("waves.1.bakeSeconds"): the form's own, else the API's. */
export type ProblemOf = (field: string) => string | undefined;

function ClusterChoice({
  index,
  wave,
  problem,
  onChange,
}: {
  index: number;
  wave: WaveForm;
  problem: string | undefined;
  onChange: (clusters: string[]) => void;
}) {
  const clusters = useClusters();
  const problemId = useId();
  return (
    <fieldset aria-describedby={problemId} aria-invalid={problem !== undefined}>
      <legend>Clusters of wave {index}</legend>
      {clusters.data === undefined && <p className="hint">Loading the clusters…</p>}
      {clusters.data?.map((cluster) => (
        <label key={cluster.id} className="radio">
          <input
            type="checkbox"
            checked={wave.clusters.includes(cluster.id)}
            onChange={(event) => {
              const others = wave.clusters.filter((id) => id !== cluster.id);
              onChange(event.target.checked ? [...others, cluster.id] : others);
            }}
          />
          {cluster.id}
          {cluster.displayName !== cluster.id && <span className="hint"> {cluster.displayName}</span>}
          {Object.entries(cluster.labels).map(([key, value]) => (
            <code key={key} className="label-chip">
              {key}={value}
            </code>
          ))}
        </label>
      ))}
      <span className="field-problem" id={problemId}>
        {problem}
      </span>
    </fieldset>
  );
}

/** What one wave's parts read and change. */
interface WavePartProps {
  index: number;
  wave: WaveForm;
  problem: ProblemOf;
  update: (patch: Partial<WaveForm>) => void;
}

/** How the wave names its clusters, how long it bakes, and the share of workloads changed first. */
function WaveSettings({ index, wave, problem, update }: WavePartProps) {
  const at = `waves.${index}`;
  return (
    <div className="form-grid">
      <Field label={`Wave ${index} clusters by`}>
        {(control) => (
          <select
            {...control}
            value={wave.by}
            onChange={(event) => {
              update({ by: event.target.value === "selector" ? "selector" : "clusters" });
            }}
          >
            <option value="clusters">id (choose them)</option>
            <option value="selector">labels (a selector)</option>
          </select>
        )}
      </Field>
      <Field
        label={`Wave ${index} bake seconds`}
        hint="How long its workloads must stay healthy, once delivered and healthy, before the next wave."
        problem={problem(`${at}.bakeSeconds`)}
      >
        {(control) => (
          <input
            {...control}
            inputMode="numeric"
            value={wave.bakeSeconds}
            onChange={(event) => {
              update({ bakeSeconds: event.target.value });
            }}
          />
        )}
      </Field>
      <Field
        label={`Wave ${index} workloads first (%)`}
        hint="Change this share of each cluster's matching workloads first; once they baked healthy, all of them. Empty: all at once. envVar and sidecar flags."
        problem={problem(`${at}.workloadPercent`)}
      >
        {(control) => (
          <input
            {...control}
            inputMode="numeric"
            placeholder="all at once"
            value={wave.workloadPercent}
            onChange={(event) => {
              update({ workloadPercent: event.target.value });
            }}
          />
        )}
      </Field>
    </div>
  );
}

/** The wave's clusters: chosen by id, or a label selector. */
function WaveClusters({ index, wave, problem, update }: WavePartProps) {
  const at = `waves.${index}`;
  return wave.by === "clusters" ? (
    <ClusterChoice
      index={index}
      wave={wave}
      problem={problem(`${at}.clusters`)}
      onChange={(clusters) => {
        update({ clusters });
      }}
    />
  ) : (
    <Field
      label={`Wave ${index} cluster labels`}
      hint="key=value, comma-separated: every registered cluster carrying all of them."
      problem={problem(`${at}.clusterSelector`)}
    >
      {(control) => (
        <input
          {...control}
          autoComplete="off"
          placeholder="region=eu"
          value={wave.selector}
          onChange={(event) => {
            update({ selector: event.target.value });
          }}
        />
      )}
    </Field>
  );
}

function WaveRow({
  index,
  wave,
  problem,
  update,
  remove,
}: WavePartProps & { remove: (() => void) | undefined }) {
  const at = `waves.${index}`;
  return (
    <fieldset className="card" aria-label={`Wave ${index}`}>
      <legend>Wave {index}</legend>
      <WaveSettings index={index} wave={wave} problem={problem} update={update} />
      <WaveClusters index={index} wave={wave} problem={problem} update={update} />
      {problem(at) !== undefined && (
        <p className="error" role="alert">
          {problem(at)}
        </p>
      )}
      {remove !== undefined && (
        <button type="button" className="danger-outline" onClick={remove}>
          Remove wave {index}
        </button>
      )}
    </fieldset>
  );
}

/** The field of the API (and of the problems) a wave input edits. */
const TOUCHED_FIELD: Readonly<Record<string, string>> = {
  bakeSeconds: "bakeSeconds",
  workloadPercent: "workloadPercent",
  clusters: "clusters",
  selector: "clusterSelector",
};

/** The plan's waves, in order: add and remove rows; each names its clusters and its bake. */
export function WaveFields({
  waves,
  problem,
  onChange,
}: {
  waves: readonly WaveForm[];
  problem: ProblemOf;
  onChange: (waves: WaveForm[], touched: string) => void;
}) {
  return (
    <>
      {waves.map((wave, index) => (
        <WaveRow
          key={index}
          index={index}
          wave={wave}
          problem={problem}
          update={(patch) => {
            const field = Object.keys(patch)[0] ?? "";
            onChange(
              waves.map((w, i) => (i === index ? { ...w, ...patch } : w)),
              `waves.${index}.${TOUCHED_FIELD[field] ?? ""}`,
            );
          }}
          remove={
            waves.length > 1
              ? () => {
                  onChange(
                    waves.filter((_, i) => i !== index),
                    "waves",
                  );
                }
              : undefined
          }
        />
      ))}
      {waves.length < WAVES_MAX && (
        <button
          type="button"
          onClick={() => {
            onChange([...waves, emptyWave()], "waves");
          }}
        >
          Add wave
        </button>
      )}
    </>
  );
}
