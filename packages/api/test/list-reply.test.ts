import { describe, expect, it } from "vitest";
import { ifNoneMatchHits, listEtag } from "../src/http/list-reply.ts";

describe("list ETags", () => {
  const etag = listEtag('[{"name":"dark-mode"}]');

  it("are weak, and differ when the list does", () => {
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(listEtag('[{"name":"dark-mode"}]')).toBe(etag);
    expect(listEtag('[{"name":"dark-mode2"}]')).not.toBe(etag);
  });

  it("match If-None-Match by weak comparison, in a list, or as *", () => {
    const opaque = etag.slice(2);
    expect(ifNoneMatchHits(etag, etag)).toBe(true);
    expect(ifNoneMatchHits(opaque, etag)).toBe(true);
    expect(ifNoneMatchHits(`W/"other", ${etag}`, etag)).toBe(true);
    expect(ifNoneMatchHits("*", etag)).toBe(true);
    expect(ifNoneMatchHits(undefined, etag)).toBe(false);
    expect(ifNoneMatchHits('W/"other"', etag)).toBe(false);
    expect(ifNoneMatchHits("", etag)).toBe(false);
  });
});
