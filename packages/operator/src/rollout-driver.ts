// FlagRollouts are driven by one replica: the one that leads and acts for the hub (the local
// cluster; with sharding, the replica holding its Lease). The driver starts the RolloutController
// when this replica comes to drive them and stops it when it no longer does, one stop at a time.
import type { RolloutController } from "./rollout-controller.ts";

export class RolloutDriver {
  readonly #make: () => RolloutController;
  readonly #drives: () => boolean;
  #running: RolloutController | undefined;
  #stopping: Promise<void> = Promise.resolve();

  /** `make` builds a controller; `drives` says whether this replica drives rollouts now. */
  constructor(make: () => RolloutController, drives: () => boolean) {
    this.#make = make;
    this.#drives = drives;
  }

  /** Starts or stops the controller to match `drives()`; called whenever what it reads changed. */
  sync(): void {
    const drives = this.#drives();
    if (drives && this.#running === undefined) {
      this.#running = this.#make();
      this.#running.start();
    } else if (!drives && this.#running !== undefined) {
      const stopping = this.#running;
      this.#running = undefined;
      this.#stopping = this.#stopping.then(() => stopping.close());
    }
  }

  /** Resolves once no rollout step is queued or in flight (tests, benchmarks). */
  async whenIdle(): Promise<void> {
    await this.#running?.whenIdle();
  }

  /** Stops the controller (the caller no longer drives) and waits for every stop begun. */
  async stop(): Promise<void> {
    this.sync();
    await this.#stopping;
  }
}
