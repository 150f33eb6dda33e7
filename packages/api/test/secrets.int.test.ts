// No password, token or cluster credential leaks: `svc api` runs as a process (debug logs kept),
// a whole session goes through it — logins right and wrong, users created and their passwords
// changed by themselves and by an admin, logouts, a cluster registered with a kubeconfig holding
// a bearer token, malformed bodies carrying passwords — and then every log line, every audit
// event (JSON and CSV) and every response body, header and error message is searched for each
// secret. The one place a token may appear is the answer to its own login.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { installCrds } from "@svc/kube";
import { testNamespace, testKubeConfig } from "../../../test/support/kube.ts";

const MAIN = resolve(import.meta.dirname, "../../cli/src/main.ts");
const secret = (what: string) => `${what}-${randomBytes(12).toString("hex")}`;
const ADMIN_PASSWORD = secret("admin-pw");

let child: ChildProcessWithoutNullStreams;
let logs = "";
let url = "";
let dir = "";
/** Everything the API answered, but the body of each successful login (which holds its token). */
const answers: string[] = [];

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string; accept?: string } = {},
) {
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const reply = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(options.accept === undefined ? {} : { accept: options.accept }),
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await reply.text();
  const isLogin = path === "/api/v1/auth/login" && reply.status === 200;
  answers.push(
    `${method} ${path} ${reply.status} ${JSON.stringify([...reply.headers])}${isLogin ? "" : ` ${text}`}`,
  );
  return {
    status: reply.status,
    text,
    json: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined) as unknown,
  };
}

async function login(username: string, password: string): Promise<string> {
  const reply = await call("POST", "/api/v1/auth/login", { body: { username, password } });
  expect(reply.status, reply.text).toBe(200);
  return (reply.json as { token: string }).token;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-secrets-"));
  // The API registers clusters as ClusterConnections, whose CRD the operator (or the chart) installs.
  await installCrds(testKubeConfig());
  const systemNamespace = await testNamespace(testKubeConfig(), "secrets-svc");
  child = spawn(process.execPath, [MAIN, "api"], {
    env: {
      PATH: process.env["PATH"] ?? "",
      KUBECONFIG: inject("kubeconfigPath"),
      SVC_NAMESPACE: systemNamespace,
      SVC_API_HOST: "127.0.0.1",
      SVC_API_PORT: "0",
      SVC_METRICS_PORT: "0",
      SVC_DATABASE_PATH: join(dir, "svc.sqlite"),
      SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SVC_LOG_LEVEL: "debug",
    },
  });
  child.stdout.on("data", (d: Buffer) => (logs += d.toString()));
  child.stderr.on("data", (d: Buffer) => (logs += d.toString()));
  url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`svc api did not start: ${logs}`));
    }, 90_000);
    const poll = setInterval(() => {
      const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(logs);
      if (match?.[1] !== undefined) {
        clearInterval(poll);
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    }, 50);
  });
}, 120_000);

afterAll(async () => {
  child.kill("SIGTERM");
  await new Promise((done) => {
    child.once("exit", done);
  });
  await rm(dir, { recursive: true, force: true });
});

it("never writes a password, token or cluster credential to logs, audit or any other answer", async () => {
  const passwords = {
    created: secret("user-pw"),
    ownChange: secret("own-pw"),
    adminChange: secret("reset-pw"),
    wrong: secret("wrong-pw"),
    malformed: secret("malformed-pw"),
    refused: secret("refused-pw"),
  };
  const admin = await login("admin", ADMIN_PASSWORD);
  expect(
    (
      await call("POST", "/api/v1/users", {
        token: admin,
        body: { username: "leaky", password: passwords.created, role: "editor" },
      })
    ).status,
  ).toBe(201);
  const user = await login("leaky", passwords.created);
  expect(
    (await call("POST", "/api/v1/auth/login", { body: { username: "leaky", password: passwords.wrong } }))
      .status,
  ).toBe(401);
  expect(
    (await call("POST", "/api/v1/auth/login", { body: { username: "nobody", password: passwords.wrong } }))
      .status,
  ).toBe(401);
  expect(
    (await call("PUT", "/api/v1/users/leaky", { token: user, body: { password: passwords.ownChange } }))
      .status,
  ).toBe(200);
  const again = await login("leaky", passwords.ownChange);
  expect(
    (await call("PUT", "/api/v1/users/leaky", { token: admin, body: { password: passwords.adminChange } }))
      .status,
  ).toBe(200);
  expect((await call("GET", "/api/v1/auth/me", { token: again })).status).toBe(401);
  const last = await login("leaky", passwords.adminChange);
  await call("POST", "/api/v1/auth/login", { raw: `{"username":"leaky","password":"${passwords.malformed}` });
  await call("POST", "/api/v1/users", {
    token: last,
    body: { username: "x", password: passwords.refused, role: "admin" },
  });
  await call("POST", "/api/v1/users", {
    token: admin,
    body: { username: "y", password: passwords.refused, role: "admin", extra: passwords.refused },
  });
  await call("GET", "/api/v1/auth/me", { token: `${admin}x` });

  // A cluster registered with a kubeconfig whose user is a bearer token.
  const kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
  const clusterToken = /token: "?([0-9a-f]{64})"?/.exec(kubeconfig)?.[1] ?? "";
  expect(clusterToken).not.toBe("");
  const server = /server: "?([^"\s,}]+)"?/.exec(kubeconfig)?.[1] ?? "";
  const registered = await call("POST", "/api/v1/clusters", {
    token: admin,
    body: {
      id: "mirror",
      displayName: "The test cluster again",
      apiServer: server,
      authMethod: "kubeconfig",
      kubeconfig,
    },
  });
  expect(registered.status, registered.text).toBe(201);
  await call("GET", "/api/v1/clusters", { token: admin });
  await call("GET", "/api/v1/clusters/mirror", { token: admin });
  await call("POST", "/api/v1/clusters", {
    token: admin,
    body: { id: "mirror", displayName: "again", apiServer: server, authMethod: "kubeconfig", kubeconfig },
  });
  await call("DELETE", "/api/v1/clusters/mirror", { token: admin });
  expect((await call("POST", "/api/v1/auth/logout", { token: last })).status).toBeLessThan(300);

  const audit = await call("GET", "/api/v1/audit?limit=1000", { token: admin });
  const csv = await call("GET", "/api/v1/audit?limit=1000", { token: admin, accept: "text/csv" });
  expect(audit.status).toBe(200);
  expect(csv.status).toBe(200);
  // The audit saw the session: its absence of secrets is not an empty log's.
  expect(audit.text).toContain("leaky");
  expect(audit.text).toContain("mirror");
  expect(logs).toContain("leaky");

  const secrets: Record<string, string> = {
    ...passwords,
    admin: ADMIN_PASSWORD,
    adminToken: admin,
    userToken: user,
    userTokenAfterOwnChange: again,
    userTokenLast: last,
    clusterToken,
  };
  const places = { logs, answers: answers.join("\n"), auditJson: audit.text, auditCsv: csv.text };
  const leaks = Object.entries(places).flatMap(([place, text]) =>
    Object.entries(secrets).flatMap(([name, value]) => (text.includes(value) ? [`${name} in ${place}`] : [])),
  );
  expect(leaks).toEqual([]);
}, 120_000);
