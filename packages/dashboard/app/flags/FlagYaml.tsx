import { flagResource, type FlagView } from "@svc/core/browser";
import { stringify } from "yaml";

/**
 * The flag as the FeatureFlag resource it is in its cluster (what `kubectl get -o yaml` shows of
 * its spec), built by the API's own function. Loaded on demand: the YAML printer is not part of
 * the first page load.
 */
export default function FlagYaml({ flag }: { flag: FlagView }) {
  const resource = flagResource(flag);
  const withStatus = {
    ...resource,
    metadata: { ...resource.metadata, resourceVersion: flag.resourceVersion },
    status: flag.status,
  };
  return <pre className="yaml">{stringify(withStatus)}</pre>;
}
