// The REST client of the SPEC.md walk: what a client written from SPEC.md alone knows (the
// paths, the bearer header, the {error} shape, the field names and types of its tables).
import { expect } from "vitest";
import { callServer, type Reply } from "../../../packages/api/test/support/harness.ts";

export type { Reply };

export interface SpecApi {
  url: string;
  call: (method: string, path: string, token?: string, body?: unknown) => Promise<Reply>;
  /** Logs in and returns the token (fails the test on anything but 200). */
  login: (username: string, password: string) => Promise<string>;
}

export function specApi(url: string): SpecApi {
  const call = (method: string, path: string, token?: string, body?: unknown) =>
    callServer(url, method, path, {
      ...(token === undefined ? {} : { token }),
      ...(body === undefined ? {} : { body }),
    });
  return {
    url,
    call,
    login: async (username, password) => {
      const reply = await call("POST", "/api/v1/auth/login", undefined, { username, password });
      expect(reply.status, reply.text).toBe(200);
      return (reply.json as { token: string }).token;
    },
  };
}

/** SPEC.md's error: the status, and a JSON body that is exactly {error: <non-empty string>}. */
export function expectError(reply: Reply, status: number, mentions?: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(reply.json as object)).toEqual(["error"]);
  const { error } = reply.json as { error: unknown };
  expect(typeof error).toBe("string");
  expect(error).not.toBe("");
  if (mentions !== undefined) expect(error).toMatch(mentions);
}

/** A success: the status and a JSON body, returned parsed. */
export function expectJson(reply: Reply, status: number): unknown {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  return reply.json;
}

type FieldType = "string" | "integer" | "boolean" | "object" | "array";

const typeOf = (value: unknown): string =>
  Array.isArray(value)
    ? "array"
    : Number.isInteger(value)
      ? "integer"
      : value === null
        ? "null"
        : typeof value;

/** Every field SPEC.md's table documents is there with its type (others may follow: "not shown"). */
export function expectFields(value: unknown, fields: Record<string, FieldType>): void {
  expect(typeOf(value)).toBe("object");
  const actual = Object.fromEntries(
    Object.keys(fields).map((name) => [name, typeOf((value as Record<string, unknown>)[name])]),
  );
  expect(actual).toEqual(fields);
}

/** A 200 {message: string}, SPEC.md's answer to logout and to user updates and deletions. */
export function expectMessage(reply: Reply): void {
  const body = expectJson(reply, 200) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["message"]);
  expect(typeof body["message"]).toBe("string");
}

export const ROLES = ["admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** A user per role, made by the admin through the API, and their tokens. */
export async function tokensByRole(
  api: SpecApi,
  adminToken: string,
  prefix: string,
): Promise<Record<Role, string>> {
  const tokens: Partial<Record<Role, string>> = {};
  for (const role of ROLES) {
    const username = `${prefix}-${role}`;
    const password = `${username}-password`;
    const created = await api.call("POST", "/api/v1/users", adminToken, { username, password, role });
    expect(created.status, created.text).toBe(201);
    tokens[role] = await api.login(username, password);
  }
  return tokens as Record<Role, string>;
}
