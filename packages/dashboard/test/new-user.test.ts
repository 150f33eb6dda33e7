// "New user": the body the dialog sends, and what the API's schema of it refuses before sending.
import { CreateUserBody } from "@svc/core";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import { emptyGrant } from "../app/users/grant-form.ts";
import { newUserBody, newUserRefusals } from "../app/users/new-user.ts";

const api = Compile(CreateUserBody);

describe("newUserBody", () => {
  it("is a body the API's schema takes, with grants only when there are some", () => {
    expect(newUserBody("ada", "correct horse", "viewer", [])).toEqual({
      username: "ada",
      password: "correct horse",
      role: "viewer",
    });
    const scoped = newUserBody("ada", "correct horse", "none", [{ ...emptyGrant(), namespaces: "shop" }]);
    expect(scoped.grants).toEqual([{ role: "editor", namespaces: ["shop"] }]);
    expect(api.Check(scoped)).toBe(true);
    expect(newUserRefusals(scoped, [])).toEqual(new Map());
  });
});

describe("newUserRefusals", () => {
  it("refuses a username the API's schema refuses, naming it", () => {
    for (const username of ["-ada", "ad a", "a".repeat(64)]) {
      const body = newUserBody(username, "correct horse", "viewer", []);
      expect(api.Check(body)).toBe(false);
      expect([...newUserRefusals(body, []).keys()]).toEqual(["username"]);
    }
    expect(newUserRefusals(newUserBody("-ada", "correct horse", "viewer", []), []).get("username")).toBe(
      "username: refused by the API's schema: must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit",
    );
  });

  it("leaves an empty username to its input, and a field to its own check", () => {
    expect(newUserRefusals(newUserBody("", "correct horse", "viewer", []), [])).toEqual(new Map());
    const short = newUserBody("ada", "short", "viewer", []);
    expect(api.Check(short)).toBe(false);
    expect(newUserRefusals(short, ["password"])).toEqual(new Map());
    expect([...newUserRefusals(short, []).keys()]).toEqual(["password"]);
  });
});
