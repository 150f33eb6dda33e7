import { useEffect, useState } from "react";

export type CallState<T> =
  | { status: "idle" }
  | { status: "loading" }
  | { status: "done"; value: T }
  | { status: "failed"; error: unknown };

const DEBOUNCE_MS = 400;

/** `value` once it has stood still for `delayMs` (the first value at once). */
export function useDebouncedValue<T>(value: T, delayMs = DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSettled(value);
    }, delayMs);
    return () => {
      clearTimeout(timer);
    };
  }, [value, delayMs]);
  return settled;
}

/**
 * The answer to a request that follows what the user types: sent DEBOUNCE_MS after the request
 * last changed, an older one aborted and its answer dropped. `request` is compared by value (a
 * JSON text); undefined sends nothing and keeps the last answer. `call` must be stable (a
 * module-level function).
 */
export function useDebouncedCall<T>(
  request: string | undefined,
  call: (request: string, signal: AbortSignal) => Promise<T>,
): CallState<T> {
  const [state, setState] = useState<CallState<T>>({ status: "idle" });
  useEffect(() => {
    if (request === undefined) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setState({ status: "loading" });
      call(request, controller.signal).then(
        (value) => {
          if (!controller.signal.aborted) setState({ status: "done", value });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) setState({ status: "failed", error });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [request, call]);
  return state;
}
