// Syntax of the sidecar's image and resources, checked once at start-up: a typo there would
// otherwise surface as a 422 (resources) or an InvalidImageName pod (image) on every workload.

// distribution/reference's grammar (reference.go): [domain[:port]/]path[:tag][@digest].
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}";
const IMAGE_REFERENCE = new RegExp(
  `^(?<name>(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::${TAG})?(?:@${DIGEST})?$`,
);
/** distribution/reference's NameTotalLengthMax. */
const MAX_NAME_LENGTH = 255;

/** Why `text` is not an image reference (`registry/path:tag@digest`), or undefined when it is one. */
export function imageReferenceProblem(text: string): string | undefined {
  const name = IMAGE_REFERENCE.exec(text)?.groups?.["name"];
  if (name === undefined)
    return `must be an image reference such as registry.example/team/image:tag, got ${JSON.stringify(text)}`;
  if (name.length > MAX_NAME_LENGTH)
    return `must be an image reference whose name is at most ${MAX_NAME_LENGTH} characters`;
  return undefined;
}

// apimachinery's resource.Quantity grammar (quantity.go), without a sign: resources are never negative.
const QUANTITY = /^(?<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?<suffix>[KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]+)?$/;
const SUFFIX_FACTORS: Record<string, number> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A Kubernetes quantity's value (`100m` → 0.1, `64Mi` → 67108864), or undefined when `text` is not one. */
export function quantityValue(text: string): number | undefined {
  const groups = QUANTITY.exec(text)?.groups;
  if (groups === undefined) return undefined;
  const number = Number(groups["number"]);
  const suffix = groups["suffix"] ?? "";
  if (suffix === "") return number;
  if (/^[eE]/.test(suffix)) return number * 10 ** Number(suffix.slice(1));
  return number * (SUFFIX_FACTORS[suffix] ?? Number.NaN);
}
