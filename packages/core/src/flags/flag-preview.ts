// A dry run's answer (POST or PUT a flag with ?dryRun=true, docs/api.md "Flags"): the flag as it
// would be saved and what saving it would do to the workloads. The one definition the API
// validates its answers with and the dashboard and the CLI read (as a type).
import Type from "typebox";
import { FlagView } from "./flag-view.ts";
import { PreviewEntry } from "../delivery/preview.ts";

export const FlagPreview = Type.Object({ flag: FlagView, preview: Type.Array(PreviewEntry) });
export type FlagPreview = Type.Static<typeof FlagPreview>;
