// The parts of a process and the order they start and stop in, as controller-runtime's Manager
// runs its runnables: groups one after another (caches, then what needs a Lease, then the rest),
// a group's parts at once, and on close the reverse, so that nothing stops before what depends on
// it. A process is then a list of its parts, and its start-up and shutdown are read off the list.

/** One part of a process: a server, a cache, a controller, a Lease. */
export interface Runnable {
  /** What it is, for the error of a start that failed ("metrics server"). */
  readonly name: string;
  /**
   * Starts it and resolves once it is ready. `signal` aborts when the process closes before the
   * start finished: a long start stops at its next step.
   */
  start?: (signal: AbortSignal) => Promise<void>;
  /** Stops what start began; called once, only for a part whose start was called. */
  close?: () => Promise<void>;
}

/** The groups of a process, each started once the one before is ready. */
export type RunnableGroups = readonly (readonly Runnable[])[];

export interface StartedGroups {
  /** Aborts an unfinished start, then closes every part started, the last group first. */
  close: () => Promise<void>;
}

/** Thrown by a start that the process's close aborted: not a failure of the part. */
export class StartAborted extends Error {
  constructor() {
    super("closed before it was ready");
    this.name = "StartAborted";
  }
}

/** Throws StartAborted once `signal` aborted: the check a long start makes after each await. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new StartAborted();
}

/** A part that only needs stopping (a client, a writer): started with the process, closed with it. */
export function closing(name: string, close: () => Promise<void>): Runnable {
  return { name, close };
}

/** A part whose start makes something the parts after it use (a client, a server). */
export interface Part<T> extends Runnable {
  /** What its start made; throws when read before its start resolved (a part out of order). */
  readonly value: T;
  /** What its start made, or undefined before then: for readers that may come early (a metrics scrape). */
  readonly current: T | undefined;
}

/** A part made by `make` and stopped by `stop` (given what `make` returned). */
export function part<T>(
  name: string,
  make: (signal: AbortSignal) => Promise<T>,
  stop?: (value: T) => Promise<void>,
): Part<T> {
  let made: { value: T } | undefined;
  return {
    name,
    get value(): T {
      if (made === undefined) throw new Error(`${name} is read before it started`);
      return made.value;
    },
    get current(): T | undefined {
      return made?.value;
    },
    start: async (signal) => {
      made = { value: await make(signal) };
    },
    close: async () => {
      if (made !== undefined) await stop?.(made.value);
    },
  };
}

function failureOf(part: Runnable, error: unknown): Error {
  if (error instanceof StartAborted) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`${part.name}: ${message}`, { cause: error });
}

/**
 * Starts `groups` in order. A start that fails closes every part started so far (its own
 * included, in reverse) and rejects with "<part>: <reason>"; the parts before it are not left
 * running. `ready` resolves when every group is up; `close` may be called at any time.
 */
export function startGroups(groups: RunnableGroups): StartedGroups & { ready: Promise<void> } {
  const aborting = new AbortController();
  const started: (readonly Runnable[])[] = [];
  const starting = (async () => {
    for (const group of groups) {
      throwIfAborted(aborting.signal);
      started.push(group);
      const results = await Promise.allSettled(group.map(async (part) => part.start?.(aborting.signal)));
      const failed = results.findIndex((result) => result.status === "rejected");
      const result = results[failed];
      if (result?.status === "rejected") throw failureOf(group[failed] as Runnable, result.reason);
    }
  })();
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      aborting.abort();
      await starting.catch(() => undefined);
      // Every part is closed even when one fails to: a leaked watch or Lease is worse than a late error.
      const failures: unknown[] = [];
      for (const group of started.reverse()) {
        const results = await Promise.allSettled(group.map(async (part) => part.close?.()));
        for (const result of results) if (result.status === "rejected") failures.push(result.reason);
      }
      const [first] = failures;
      if (first instanceof Error) throw first;
      if (failures.length > 0) throw new Error("a part failed to close", { cause: first });
    })());
  const ready = starting.catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { ready, close };
}
