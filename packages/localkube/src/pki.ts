// The local cluster's certificate authority, as kubeadm makes one: it signs the kube-apiserver's
// serving certificate (valid for loopback, the pod network's gateway and the `kubernetes`
// Service, so that clients on the machine and in pods verify it), the node components' client
// certificates (the kube-apiserver trusts it for users), and the kube-apiserver's client
// certificate for kubelets (logs, exec). Node has no X.509 issuing API, so openssl (on every
// Debian system with ca-certificates) signs.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface CertificateAuthority {
  readonly certPath: string;
  readonly keyPath: string;
}

export interface Certificate {
  readonly certPath: string;
  readonly keyPath: string;
}

/** Ten years: the local cluster's folder is deleted long before. */
const DAYS = "3650";
/** P-256 keys: generated in milliseconds, unlike RSA. */
const KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

async function openssl(args: string[]): Promise<void> {
  try {
    await run("openssl", args);
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "openssl is not installed" : String(error);
    throw new Error(`the local cluster's certificates could not be made: ${why}`, { cause: error });
  }
}

export async function createCertificateAuthority(dir: string): Promise<CertificateAuthority> {
  const certPath = join(dir, "ca.crt");
  const keyPath = join(dir, "ca.key");
  await openssl([
    "req",
    "-x509",
    ...KEY,
    "-keyout",
    keyPath,
    "-out",
    certPath,
    "-days",
    DAYS,
    "-subj",
    "/CN=svc-local-ca",
  ]);
  return { certPath, keyPath };
}

/**
 * A client certificate for `user` in `groups`: Kubernetes reads the user from the CN and the
 * groups from the O entries.
 */
export function issueClientCertificate(
  ca: CertificateAuthority,
  dir: string,
  fileName: string,
  user: string,
  groups: readonly string[] = [],
): Promise<Certificate> {
  const subject = `/CN=${user}${groups.map((group) => `/O=${group}`).join("")}`;
  return issue(ca, dir, fileName, subject, "extendedKeyUsage=clientAuth");
}

/** A serving certificate for these addresses and DNS names. */
export function issueServingCertificate(
  ca: CertificateAuthority,
  dir: string,
  fileName: string,
  ips: readonly string[],
  dnsNames: readonly string[],
): Promise<Certificate> {
  const names = [...ips.map((ip) => `IP:${ip}`), ...dnsNames.map((name) => `DNS:${name}`)];
  return issue(
    ca,
    dir,
    fileName,
    `/CN=${dnsNames[0] ?? ips[0] ?? fileName}`,
    `extendedKeyUsage=serverAuth\nsubjectAltName=${names.join(",")}`,
  );
}

async function issue(
  ca: CertificateAuthority,
  dir: string,
  fileName: string,
  subject: string,
  extensions: string,
): Promise<Certificate> {
  const certPath = join(dir, `${fileName}.crt`);
  const keyPath = join(dir, `${fileName}.key`);
  const csrPath = join(dir, `${fileName}.csr`);
  const extPath = join(dir, `${fileName}.ext`);
  await writeFile(extPath, `${extensions}\n`);
  await openssl(["req", ...KEY, "-keyout", keyPath, "-out", csrPath, "-subj", subject]);
  await openssl([
    "x509",
    "-req",
    "-in",
    csrPath,
    "-CA",
    ca.certPath,
    "-CAkey",
    ca.keyPath,
    // A random serial rather than a serial file: certificates are issued concurrently.
    "-set_serial",
    `0x${randomBytes(8).toString("hex")}`,
    "-extfile",
    extPath,
    "-out",
    certPath,
    "-days",
    DAYS,
  ]);
  return { certPath, keyPath };
}
