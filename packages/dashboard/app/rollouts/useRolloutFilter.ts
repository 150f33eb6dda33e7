import { useSearchParams } from "react-router";
import { filterOf } from "./rollout-model.ts";

/** The list's filters, kept in the URL; `update` replaces a value ("" removes it) in place. */
export function useRolloutFilter() {
  const [params, setParams] = useSearchParams();
  const filter = filterOf(params);
  const update = (key: "phase" | "flag", value: string) => {
    const next = new URLSearchParams(params);
    if (value === "") next.delete(key);
    else next.set(key, value);
    setParams(next, { replace: true });
  };
  return { filter, update };
}
