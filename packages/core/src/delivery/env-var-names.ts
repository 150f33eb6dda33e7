/**
 * Environment variable names a flag may never set: those that change how a program starts,
 * which code it loads, or where and how it connects. A flag's value is written by an editor
 * and read by every container of the workloads it selects, so NODE_OPTIONS=--import=data:...
 * or LD_PRELOAD would run the editor's code there (docs/delivery.md, "Refused variable names").
 * The API refuses such a name (400), the operator refuses a flag applied with kubectl (status
 * Degraded, nothing injected); both call envVarNameProblem. Names compare without regard to
 * case: Windows containers read them so, and no flag needs `ld_preload` either.
 */

export interface RefusedEnvVars {
  /** Who reads them ("Node.js", "the dynamic linker"): named in the refusal. */
  readonly runtime: string;
  readonly names: readonly string[];
  readonly prefixes?: readonly string[];
  readonly suffixes?: readonly string[];
  /** Names the prefixes would catch that only select a mode of the application. */
  readonly except?: readonly string[];
}

/** By runtime; each entry from the runtime's own documentation of the variables it reads. */
export const REFUSED_ENV_VARS: readonly RefusedEnvVars[] = [
  {
    runtime: "Node.js",
    names: ["UV_THREADPOOL_SIZE", "UV_USE_IO_URING"],
    prefixes: ["NODE_", "NPM_CONFIG_", "DENO_", "BUN_"],
    except: ["NODE_ENV"],
  },
  {
    runtime: "the JVM",
    names: [
      "JAVA_TOOL_OPTIONS",
      "_JAVA_OPTIONS",
      "JDK_JAVA_OPTIONS",
      "JAVA_OPTIONS",
      "JAVA_HOME",
      "JRE_HOME",
      "JDK_HOME",
      "CLASSPATH",
      "LOGGING_CONFIG",
      "SPRING_APPLICATION_JSON",
    ],
    // *_OPTS: launchers (catalina.sh, kafka-run-class.sh, Gradle, Maven, Elasticsearch, Spark…)
    // splice them into the java command line; LOADER_*: Spring Boot's PropertiesLauncher classpath.
    prefixes: ["LOADER_", "SPRING_CONFIG_"],
    suffixes: ["_OPTS", "_JAVA_OPTIONS", "_JVM_OPTIONS"],
  },
  {
    runtime: "Python",
    names: [
      "REQUESTS_CA_BUNDLE",
      "VIRTUAL_ENV",
      "DJANGO_SETTINGS_MODULE",
      "FLASK_APP",
      "GUNICORN_CMD_ARGS",
      "CONDA_PREFIX",
    ],
    // PYTHON*: PYTHONPATH, PYTHONSTARTUP, PYTHONHOME, PYTHONBREAKPOINT, PYTHONWARNINGS (imports
    // the category's module), PYTHONUSERBASE…; UWSGI_*: every uWSGI option, exec hooks included.
    prefixes: ["PYTHON", "PIP_", "UWSGI_"],
  },
  {
    runtime: ".NET",
    names: [],
    // DOTNET_STARTUP_HOOKS, DOTNET_ADDITIONAL_DEPS…; CORECLR_/COR_: profilers (a native library);
    // COMPlus_: runtime settings; ASPNETCORE_HOSTINGSTARTUPASSEMBLIES loads assemblies.
    prefixes: ["DOTNET_", "CORECLR_", "COR_", "COMPLUS_", "ASPNETCORE_", "MONO_"],
    except: ["DOTNET_ENVIRONMENT", "ASPNETCORE_ENVIRONMENT"],
  },
  {
    runtime: "Ruby",
    names: ["RUBYOPT", "RUBYLIB", "RUBYPATH", "RUBYSHELL"],
    prefixes: ["RUBY_", "GEM_", "BUNDLE_", "BUNDLER_"],
  },
  { runtime: "Perl", names: ["PERLLIB", "PERLIO", "PERLIO_DEBUG"], prefixes: ["PERL5", "PERL_"] },
  { runtime: "PHP", names: ["PHPRC", "PHP_INI_SCAN_DIR"], prefixes: ["PHP_"] },
  {
    runtime: "Go",
    names: [
      "GODEBUG",
      "GOFLAGS",
      "GOENV",
      "GOROOT",
      "GOPATH",
      "GOPROXY",
      "GONOPROXY",
      "GOPRIVATE",
      "GONOSUMDB",
      "GONOSUMCHECK",
      "GOSUMDB",
      "GOINSECURE",
      "GOTOOLCHAIN",
      "GOEXPERIMENT",
      "GOTRACEBACK",
      "GOMAXPROCS",
      "GOGC",
      "GOMEMLIMIT",
      "GOCACHE",
      "GOMODCACHE",
      "GOWORK",
    ],
    prefixes: ["CGO_"],
  },
  {
    runtime: "the dynamic linker and the C library",
    // GLIBC_TUNABLES: CVE-2023-4911; GCONV_PATH loads iconv modules; the resolver's variables
    // redirect name lookups.
    names: [
      "GLIBC_TUNABLES",
      "GCONV_PATH",
      "GETCONF_DIR",
      "HOSTALIASES",
      "LOCALDOMAIN",
      "RES_OPTIONS",
      "RESOLV_HOST_CONF",
      "NLSPATH",
      "LOCPATH",
      "MALLOC_CONF",
      "TZDIR",
    ],
    prefixes: ["LD_", "DYLD_"],
  },
  {
    runtime: "shells and the programs they start",
    names: [
      "PATH",
      "HOME",
      "SHELL",
      "ENV",
      "BASH_ENV",
      "SHELLOPTS",
      "BASHOPTS",
      "PS0",
      "PS1",
      "PS2",
      "PS4",
      "PROMPT_COMMAND",
      "IFS",
      "CDPATH",
      "GLOBIGNORE",
      "ZDOTDIR",
      "INPUTRC",
      "EDITOR",
      "VISUAL",
      "PAGER",
      "BROWSER",
      "SSH_ASKPASS",
      "SUDO_ASKPASS",
      "TMPDIR",
    ],
    prefixes: ["BASH_FUNC_", "GIT_", "XDG_", "SSH_"],
  },
  {
    runtime: "HTTP and gRPC clients (proxies)",
    // <scheme>_PROXY, read in both cases by curl, Go, Python and Node's undici.
    names: [
      "HTTP_PROXY",
      "HTTPS_PROXY",
      "ALL_PROXY",
      "NO_PROXY",
      "FTP_PROXY",
      "FTPS_PROXY",
      "SOCKS_PROXY",
      "SOCKS5_PROXY",
      "WS_PROXY",
      "WSS_PROXY",
      "RSYNC_PROXY",
      "GOPHER_PROXY",
    ],
    prefixes: ["GRPC_"],
  },
  {
    runtime: "TLS libraries",
    // SSLKEYLOGFILE writes every session's keys to a file: the traffic can then be read.
    names: [
      "SSL_CERT_FILE",
      "SSL_CERT_DIR",
      "CURL_CA_BUNDLE",
      "SSLKEYLOGFILE",
      "GNUTLS_SYSTEM_PRIORITY_FILE",
    ],
    prefixes: ["OPENSSL_"],
  },
  {
    runtime: "cloud and Kubernetes clients (credentials and endpoints)",
    names: ["KUBECONFIG", "DOCKER_HOST", "DOCKER_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS"],
    // KUBERNETES_SERVICE_HOST would send the pod's ServiceAccount token elsewhere;
    // AWS_ENDPOINT_URL*, AWS_CONTAINER_CREDENTIALS_FULL_URI and AZURE_AUTHORITY_HOST likewise.
    prefixes: ["KUBERNETES_", "AWS_", "AZURE_", "CLOUDSDK_"],
  },
  { runtime: "svc itself", names: [], prefixes: ["SVC_"] },
];

/**
 * The prefix of svc's default names (FLAG_<NAME>): no entry above names or starts with it (a
 * unit test keeps it so), and suffix rules skip it, so such a name is allowed at once; that is
 * every flag without a name of its own, planned for every workload it matches.
 */
const SVC_DEFAULT_PREFIX = "FLAG_";

/** The exact names, looked up at once; the excepted names; prefixes and suffixes, in list order. */
const EXACT = new Map(REFUSED_ENV_VARS.flatMap((e) => e.names.map((n) => [n, e.runtime] as const)));
const EXCEPT = new Set(REFUSED_ENV_VARS.flatMap((e) => e.except ?? []));
const PREFIXES = REFUSED_ENV_VARS.flatMap((e) => (e.prefixes ?? []).map((p) => [p, e.runtime] as const));
const SUFFIXES = REFUSED_ENV_VARS.flatMap((e) => (e.suffixes ?? []).map((x) => [x, e.runtime] as const));

/** The runtime that reads `name` in a way a flag must not change, or undefined. */
export function refusedEnvVarRuntime(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (upper.startsWith(SVC_DEFAULT_PREFIX) || EXCEPT.has(upper)) return undefined;
  const exact = EXACT.get(upper);
  if (exact !== undefined) return exact;
  return (
    PREFIXES.find(([prefix]) => upper.startsWith(prefix))?.[1] ??
    SUFFIXES.find(([suffix]) => upper.endsWith(suffix))?.[1]
  );
}

/**
 * Whether `name` matches one of the installer's patterns (glob: `*` stands for any run of
 * characters, e.g. FLAG_*). No pattern: every name not refused above.
 */
export function envVarNameAllowed(name: string, patterns: readonly string[]): boolean {
  return patterns.length === 0 || patterns.some((pattern) => globMatches(pattern, name));
}

function globMatches(pattern: string, name: string): boolean {
  const parts = pattern.split("*");
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (parts.length === 1) return name === pattern;
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last))
    return false;
  // The middle parts in order, each after the previous, within what first and last leave.
  let at = first.length;
  const end = name.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * Why a flag may not set the variable `name`, or undefined: refused for every role when a
 * runtime reads it (REFUSED_ENV_VARS), or outside the installer's patterns (`allowed`).
 */
export function envVarNameProblem(name: string, allowed: readonly string[] = []): string | undefined {
  const runtime = refusedEnvVarRuntime(name);
  if (runtime !== undefined)
    return `${name} is refused: it changes how ${runtime} starts a program, loads code or connects; choose another name (docs/delivery.md, "Refused variable names")`;
  if (!envVarNameAllowed(name, allowed))
    return `${name} is outside the names this installation allows (${allowed.join(", ")})`;
  return undefined;
}

/** An installer's pattern: letters, digits, '_' and '*' (checked once when settings are read). */
export const ENV_VAR_NAME_PATTERN = /^[A-Za-z0-9_*]+$/;
