import { describe, expect, it } from "vitest";
import {
  changeEvent,
  EventHistory,
  formatEvent,
  parseStreamId,
  refetchEvent,
  snapshotEvents,
  streamId,
} from "../src/sse.ts";

describe("event formatting", () => {
  it("writes id, event and one data line, ended by a blank line", () => {
    expect(formatEvent("update", "b.1", '{"name":"a"}')).toBe(
      'id: b.1\nevent: update\ndata: {"name":"a"}\n\n',
    );
  });

  it("turns changes into update (flag object) and delete ({name}) events", () => {
    const json = '{"name":"a","type":"string","value":"x","disabled":false}';
    const flag = { name: "a", key: "a", type: "string" as const, value: "x", disabled: false };
    expect(changeEvent("b", { kind: "update", revision: 3, flag }, json)).toBe(
      formatEvent("update", "b.3", json),
    );
    expect(changeEvent("b", { kind: "delete", revision: 4, name: "a" }, "")).toBe(
      formatEvent("delete", "b.4", '{"name":"a"}'),
    );
  });

  it("gives only the last snapshot event the plain id of the revision", () => {
    expect(snapshotEvents("b", 9, ["1", "2", "3"])).toBe(
      formatEvent("update", "b.9.0", "1") +
        formatEvent("update", "b.9.1", "2") +
        formatEvent("update", "b.9", "3"),
    );
    expect(snapshotEvents("b", 0, [])).toBe("");
  });
});

describe("OFREP events", () => {
  it("are `message` events with {type: refetchEvaluation, etag} and a resumable id (ADR-0008)", () => {
    expect(refetchEvent("b", 7, '"tag"')).toBe(
      'id: b.7\nevent: message\ndata: {"type":"refetchEvaluation","etag":"\\"tag\\""}\n\n',
    );
    expect(parseStreamId("b", "b.7")).toBe(7);
  });
});

describe("stream ids", () => {
  it("accepts a complete id of this process only", () => {
    expect(parseStreamId("b", streamId("b", 12))).toBe(12);
    expect(parseStreamId("b", "other.12")).toBeUndefined();
    expect(parseStreamId("b", "b.12.3")).toBeUndefined();
    expect(parseStreamId("b", "b.")).toBeUndefined();
    expect(parseStreamId("b", "b.012")).toBeUndefined();
    expect(parseStreamId("b", undefined)).toBeUndefined();
  });
});

describe("EventHistory", () => {
  const history = () => {
    const h = new EventHistory({ maxEvents: 3, maxBytes: 1000, revision: 0 });
    for (const revision of [1, 2, 3, 4]) h.add(revision, `e${revision};`);
    return h;
  };

  it("replays the events after a revision it still holds", () => {
    expect(history().since(1)).toBe("e2;e3;e4;");
    expect(history().since(3)).toBe("e4;");
    expect(history().since(4)).toBe("");
  });

  it("refuses a revision whose successors it dropped, or one from the future", () => {
    expect(history().since(0)).toBeUndefined();
    expect(history().since(5)).toBeUndefined();
  });

  it("bounds the bytes it holds", () => {
    const h = new EventHistory({ maxEvents: 100, maxBytes: 10, revision: 0 });
    h.add(1, "aaaaaa");
    h.add(2, "bbbbbb");
    expect(h.since(1)).toBe("bbbbbb");
    expect(h.since(0)).toBeUndefined();
  });

  it("starts at the state's revision: nothing to replay yet", () => {
    expect(new EventHistory({ maxEvents: 3, maxBytes: 10, revision: 5 }).since(5)).toBe("");
  });
});
