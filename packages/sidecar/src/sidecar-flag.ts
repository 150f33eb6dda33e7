// A flag as the sidecar serves it. In a module of its own, importing nothing at run time, so that
// the model (flags.ts), the rendered responses (responses.ts) and OFREP (ofrep.ts) share the type
// without importing one another in a circle.
import type { FlagType } from "@svc/core/basics";

/** SPEC.md "Sidecar endpoints": the flag object of every read, stream event and evaluation. */
export interface SidecarFlag {
  name: string;
  type: FlagType;
  /** spec.defaultValue, always a string. */
  value: string;
  disabled: boolean;
}
