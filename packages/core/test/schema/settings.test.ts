import { describe, expect, it } from "vitest";
import { LOG_LEVELS, settingsReader } from "../../src/schema/settings.ts";

const PORT = "SVC_PORT";

describe("settingsReader", () => {
  it("gives the default for an unset or empty variable, without an error", () => {
    const read = settingsReader({ SVC_EMPTY: "" });
    expect(read.port("SVC_UNSET", 8514)).toBe(8514);
    expect(read.port("SVC_EMPTY", 8514)).toBe(8514);
    expect(read.integer("SVC_UNSET", 7, { min: 1, max: 10 })).toBe(7);
    expect(read.durationMs("SVC_UNSET", 15_000, { min: 100, max: 60_000 })).toBe(15_000);
    expect(read.boolean("SVC_EMPTY", true)).toBe(true);
    expect(read.oneOf("SVC_UNSET", LOG_LEVELS, "info")).toBe("info");
    expect(read.text("SVC_EMPTY", "0.0.0.0")).toBe("0.0.0.0");
    expect(read.errors).toEqual([]);
  });

  it("reads plain decimal ports, integers and the ends of their ranges", () => {
    const read = settingsReader({ A: "0", B: "65535", C: "8090", D: "1", E: "100000" });
    expect([read.port("A", 1), read.port("B", 1), read.port("C", 1)]).toEqual([0, 65535, 8090]);
    expect([
      read.integer("D", 5, { min: 1, max: 100_000 }),
      read.integer("E", 5, { min: 1, max: 100_000 }),
    ]).toEqual([1, 100_000]);
    expect(read.errors).toEqual([]);
  });

  it("refuses what Number() would accept but a person did not mean, naming the variable and the value", () => {
    for (const text of [
      "0x1F",
      " 8e3 ",
      "8e3",
      "+80",
      "-1",
      "80.0",
      "1_000",
      " 80",
      "80 ",
      "0b11",
      "65536",
      "Infinity",
      "1234567890123456789",
    ]) {
      const read = settingsReader({ [PORT]: text });
      expect(read.port(PORT, 8514), text).toBe(8514);
      expect(read.errors, text).toEqual([
        { field: PORT, message: `must be a port number between 0 and 65535, got ${JSON.stringify(text)}` },
      ]);
    }
    const read = settingsReader({ DAYS: "0" });
    expect(read.integer("DAYS", 365, { min: 1, max: 100_000 })).toBe(365);
    expect(read.errors).toEqual([
      { field: "DAYS", message: 'must be an integer between 1 and 100000, got "0"' },
    ]);
  });

  it("reads durations as milliseconds, with or without a unit, within their range", () => {
    const range = { min: 100, max: 3_600_000 };
    const read = settingsReader({ A: "500", B: "500ms", C: "15s", D: "2m", E: "1h" });
    expect(["A", "B", "C", "D", "E"].map((name) => read.durationMs(name, 0, range))).toEqual([
      500, 500, 15_000, 120_000, 3_600_000,
    ]);
    expect(read.errors).toEqual([]);
    for (const text of ["5", "2h", "1.5s", "15 s", "s", "15S", "-1s", "1e3", "15sec"]) {
      const bad = settingsReader({ T: text });
      expect(bad.durationMs("T", 15_000, range), text).toBe(15_000);
      expect(
        bad.errors.map((e) => e.field),
        text,
      ).toEqual(["T"]);
    }
  });

  it("reads booleans and enumerations exactly as spelt", () => {
    const read = settingsReader({ A: "true", B: "false", C: "debug" });
    expect([read.boolean("A", false), read.boolean("B", true)]).toEqual([true, false]);
    expect(read.oneOf("C", LOG_LEVELS, "info")).toBe("debug");
    expect(read.errors).toEqual([]);
    const bad = settingsReader({ A: "yes", B: "TRUE", C: "loud", D: "Info" });
    expect([bad.boolean("A", false), bad.boolean("B", false)]).toEqual([false, false]);
    expect([bad.oneOf("C", LOG_LEVELS, "info"), bad.oneOf("D", LOG_LEVELS, "info")]).toEqual([
      "info",
      "info",
    ]);
    expect(bad.errors).toEqual([
      { field: "A", message: 'must be true or false, got "yes"' },
      { field: "B", message: 'must be true or false, got "TRUE"' },
      { field: "C", message: `must be one of: ${LOG_LEVELS.join(", ")}, got "loud"` },
      { field: "D", message: `must be one of: ${LOG_LEVELS.join(", ")}, got "Info"` },
    ]);
  });

  it("reports every bad variable in reading order, with the caller's own problems, and shortens long values", () => {
    const read = settingsReader({ A: "x".repeat(100), B: "no" });
    read.port("A", 1);
    read.problem("URL", "must be a postgres:// URL");
    read.boolean("B", false);
    expect(read.errors.map((e) => e.field)).toEqual(["A", "URL", "B"]);
    expect(read.errors[0]?.message).toBe(
      `must be a port number between 0 and 65535, got "${"x".repeat(40)}…"`,
    );
  });
});
