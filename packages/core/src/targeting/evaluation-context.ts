/**
 * The bounds of an evaluation context, where svc takes one from a caller (the sidecar's OFREP,
 * the API's evaluate): a rule iterating over the context iterates over at most this many values
 * (targeting-cost.ts counts on it). No imports: the sidecar imports it and stays small.
 */

/** Bounds of an evaluation context (docs/sidecar.md, "OFREP mapping"). */
export const CONTEXT_LIMITS = {
  depth: 8,
  values: 1_000,
  stringLength: 4_096,
  /** Of keys and strings together: the sidecar's 64 KiB body, for every caller. */
  characters: 65_536,
} as const;

/** Keys that would reach an object's prototype once flagd-core copies the context. */
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Why a context is refused, naming the attribute, or undefined: more nesting, values or longer
 * strings than CONTEXT_LIMITS, or keys that reach a prototype. Walked breadth-first (no
 * recursion: nesting is what is being checked).
 */
export function contextProblem(context: Record<string, unknown>): string | undefined {
  let values = 0;
  let characters = 0;
  let level: { path: string; value: unknown }[] = [{ path: "context", value: context }];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > CONTEXT_LIMITS.depth) {
      return `${level[0]?.path ?? "context"}: context is nested deeper than ${CONTEXT_LIMITS.depth} levels`;
    }
    const next: { path: string; value: unknown }[] = [];
    for (const { path, value } of level) {
      if (typeof value === "string" && value.length > CONTEXT_LIMITS.stringLength) {
        return `${path} is longer than ${CONTEXT_LIMITS.stringLength} characters`;
      }
      characters += typeof value === "string" ? value.length : 0;
      if (characters > CONTEXT_LIMITS.characters)
        return `context has more than ${CONTEXT_LIMITS.characters} characters of text`;
      if (typeof value !== "object" || value === null) continue;
      const entries = Array.isArray(value)
        ? value.map((item, n) => [`${path}[${n}]`, item] as const)
        : Object.entries(value).map(([name, item]) => {
            characters += name.length;
            if (PROTOTYPE_KEYS.has(name)) return [undefined, name] as const;
            return [`${path}.${name}`, item] as const;
          });
      for (const [itemPath, item] of entries) {
        if (itemPath === undefined)
          return `${path}: the key ${JSON.stringify(item)} is not allowed in a context`;
        if (++values > CONTEXT_LIMITS.values) return `context has more than ${CONTEXT_LIMITS.values} values`;
        next.push({ path: itemPath, value: item });
      }
    }
    level = next;
  }
  return undefined;
}
