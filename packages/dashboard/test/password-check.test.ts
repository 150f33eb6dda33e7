import { UpdateUserBody } from "@svc/core";
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES } from "@svc/core/browser";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import { checkNewPassword } from "../app/users/password-check.ts";

describe("checkNewPassword", () => {
  it("says nothing before anything is typed, but does not let the form be sent", () => {
    expect(checkNewPassword("", "")).toEqual({ password: undefined, confirmation: undefined, ready: false });
  });

  it("asks for the API's minimum length, counted in characters", () => {
    expect(checkNewPassword("short", "").password).toBe(`must be at least ${PASSWORD_MIN_BYTES} characters`);
    // four 2-byte characters are 8 bytes but 4 characters: the API refuses them
    expect(checkNewPassword("éééé", "éééé").ready).toBe(false);
    expect(checkNewPassword("x".repeat(PASSWORD_MIN_BYTES), "x".repeat(PASSWORD_MIN_BYTES)).ready).toBe(true);
  });

  it("refuses more bytes than bcrypt reads, counting UTF-8", () => {
    const tooLong = "é".repeat(PASSWORD_MAX_BYTES / 2 + 1);
    expect(checkNewPassword(tooLong, tooLong).password).toBe(
      `must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8`,
    );
  });

  it("refuses a password whose body the API's schema refuses", () => {
    const api = Compile(UpdateUserBody);
    for (const password of ["seven77", "x".repeat(73), "\u{1F600}".repeat(7)]) {
      expect(api.Check({ password })).toBe(false);
      expect(checkNewPassword(password, password).ready).toBe(false);
    }
    expect(api.Check({ password: "correct horse" })).toBe(true);
  });

  it("refuses a lone surrogate", () => {
    expect(checkNewPassword("abcdefgh\ud800", "abcdefgh\ud800").password).toMatch(/valid Unicode/);
  });

  it("asks for a confirmation that matches, once one is typed", () => {
    const check = checkNewPassword("correct horse", "correct hors");
    expect(check).toEqual({
      password: undefined,
      confirmation: "does not match the new password",
      ready: false,
    });
    expect(checkNewPassword("correct horse", "correct horse").ready).toBe(true);
  });
});
