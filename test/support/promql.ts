// The metric names a PromQL expression reads, so that a test can hold every dashboard panel and
// alert of the chart against the series the processes really export. A tokenizer rather than a
// parser: it only has to tell a metric name apart from everything else that looks like a word
// (functions, aggregations and their label lists, keywords, label matchers, durations, numbers,
// strings, Grafana's $variables), and it refuses input it does not understand instead of guessing.

/** Aggregation operators: their name may be followed by `by (…)`/`without (…)` before the `(`. */
const AGGREGATIONS = new Set([
  "sum",
  "min",
  "max",
  "avg",
  "group",
  "stddev",
  "stdvar",
  "count",
  "count_values",
  "bottomk",
  "topk",
  "quantile",
  "limitk",
  "limit_ratio",
]);
/** Keywords followed by a parenthesised list of label names (optional after group_left/right). */
const LABEL_LIST_KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);
/** Words that are never metric names where they stand alone. */
const KEYWORDS = new Set(["and", "or", "unless", "atan2", "bool", "offset", "inf", "nan"]);

const IDENTIFIER = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const NUMBER_OR_DURATION = /^(0x[0-9a-fA-F]+|(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?([a-zA-Z]+\d*)*)/;

/** The distinct metric names `expr` selects, sorted. Throws on a character it cannot place. */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  let i = 0;
  const skipSpace = () => {
    for (;;) {
      while (i < expr.length && /\s/.test(expr.charAt(i))) i++;
      if (expr[i] !== "#") return;
      while (i < expr.length && expr[i] !== "\n") i++;
    }
  };
  /** Reads the string literal at i (", ' or `) and returns its content. */
  const readString = (): string => {
    const quote = expr.charAt(i++);
    let value = "";
    while (i < expr.length && expr[i] !== quote) {
      if (expr[i] === "\\" && quote !== "`") i++;
      value += expr.charAt(i++);
    }
    if (i >= expr.length) throw new Error(`unterminated string in ${expr}`);
    i++;
    return value;
  };
  /** Skips `( label, … )` after by/without/on/ignoring/group_left/group_right. */
  const skipLabelList = () => {
    const end = expr.indexOf(")", i);
    if (end < 0) throw new Error(`unterminated label list in ${expr}`);
    i = end + 1;
  };
  /** Skips `{…}`; a `__name__="x"` matcher inside selects metric x. */
  const readMatchers = () => {
    i++;
    for (;;) {
      skipSpace();
      if (i >= expr.length) throw new Error(`unterminated label matchers in ${expr}`);
      const c = expr.charAt(i);
      if (c === "}") {
        i++;
        return;
      }
      if (c === '"' || c === "'" || c === "`") {
        readString();
        continue;
      }
      const label = IDENTIFIER.exec(expr.slice(i))?.[0];
      if (label === undefined) {
        i++; // an operator (=, !=, =~, !~) or a comma
        continue;
      }
      i += label.length;
      skipSpace();
      if (label === "__name__" && expr[i] === "=" && expr[i + 1] !== "~") {
        i++;
        skipSpace();
        names.add(readString());
      }
    }
  };
  while (i < expr.length) {
    skipSpace();
    if (i >= expr.length) break;
    const c = expr.charAt(i);
    const rest = expr.slice(i);
    if (c === '"' || c === "'" || c === "`") {
      readString();
    } else if (c === "[") {
      // A range or subquery: durations, steps and Grafana's $__rate_interval, never a metric.
      const end = expr.indexOf("]", i);
      if (end < 0) throw new Error(`unterminated range in ${expr}`);
      i = end + 1;
    } else if (c === "{") {
      readMatchers();
    } else if (c === "$") {
      // A Grafana variable: $name, ${name} or ${name:format}.
      const variable = /^\$(\{[^}]*\}|\w+)/.exec(rest)?.[0];
      if (variable === undefined) throw new Error(`bad variable at ${rest}`);
      i += variable.length;
    } else if (/[0-9.]/.test(c)) {
      const number = NUMBER_OR_DURATION.exec(rest)?.[0];
      if (number === undefined) throw new Error(`bad number at ${rest}`);
      i += number.length;
    } else if (IDENTIFIER.test(rest)) {
      const word = IDENTIFIER.exec(rest)?.[0] ?? "";
      i += word.length;
      skipSpace();
      const next = expr[i];
      // PromQL's keywords and aggregation operators are case-insensitive; metric names are not.
      const lower = word.toLowerCase();
      if (LABEL_LIST_KEYWORDS.has(lower)) {
        if (next === "(") skipLabelList();
      } else if (KEYWORDS.has(lower) || AGGREGATIONS.has(lower)) {
        // An operator; an aggregation's own parenthesis is read as ordinary input next.
      } else if (next === "(") {
        // A function call (rate, histogram_quantile, vector, label_replace, …): its arguments follow.
      } else {
        names.add(word);
      }
    } else if (/[-+*/%^=!<>(),@~]/.test(c)) {
      i++;
    } else {
      throw new Error(`unexpected ${JSON.stringify(c)} in ${expr}`);
    }
  }
  return [...names].sort();
}
