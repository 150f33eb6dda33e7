// What bench/dashboard/run.ts measures in a page: first row, frames while scrolling, search
// latency and the bytes a poll downloads. Each is read in the page (performance.now(),
// requestAnimationFrame) or from Chromium's own network accounting (CDP), not from the test's
// clock.
import type { Page } from "playwright-core";

export const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? NaN;

/** Milliseconds from navigation start until `selector` is in the page, read in the page. */
export async function timeToSelector(page: Page, url: string, selector: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    `document.querySelector(${JSON.stringify(selector)}) ? performance.now() : false`,
    undefined,
    { polling: "raf", timeout: 60_000 },
  );
  return Number(await handle.jsonValue());
}

/**
 * The frame intervals (requestAnimationFrame deltas) while the flag table is scrolled down by
 * the mouse wheel, `steps` wheel turns of `pixels`, as a user flicks through the list; a paged
 * list loads its next pages meanwhile.
 */
export async function scrollFrames(page: Page, steps: number, pixels: number): Promise<number[]> {
  await page.locator(".flag-table").hover();
  await page.evaluate(`(() => {
    const frames = (window.__frames = []);
    let last = performance.now();
    window.__recording = true;
    const tick = (now) => {
      frames.push(now - last);
      last = now;
      if (window.__recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  for (let i = 0; i < steps; i++) {
    await page.mouse.wheel(0, pixels);
    await page.evaluate("new Promise((done) => requestAnimationFrame(() => done()))");
  }
  return page.evaluate<number[]>("(window.__recording = false, window.__frames.slice(1))");
}

/**
 * Bytes Chromium received (headers and body, as sent: compressed) for the flag-list requests
 * of an idle open tab over `windowMs`, and how many such requests it sent: the cost of polling.
 */
export async function pollBytes(page: Page, windowMs: number): Promise<{ bytes: number; polls: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const lists = new Set<string>();
  let bytes = 0;
  cdp.on("Network.requestWillBeSent", (event) => {
    if (new URL(event.request.url).pathname === "/api/v1/flags") lists.add(event.requestId);
  });
  cdp.on("Network.loadingFinished", (event) => {
    if (lists.has(event.requestId)) bytes += event.encodedDataLength;
  });
  await new Promise((done) => setTimeout(done, windowMs));
  await cdp.detach();
  return { bytes, polls: lists.size };
}

/**
 * Per query: set the search input's value, then time from the input event to the frame after
 * the flag count above the table changed.
 */
export function searchScript(): string {
  return `(async (queries) => {
    const input = document.querySelector("input[type=search]");
    const count = () => document.querySelector("p.hint[aria-live]")?.textContent;
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
    const times = [];
    for (const query of queries) {
      const before = count();
      const start = performance.now();
      setValue.call(input, query);
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((done) => {
        const check = () => {
          if (count() !== before || performance.now() - start > 10000) requestAnimationFrame(() => done());
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
      times.push(performance.now() - start);
      await new Promise((done) => setTimeout(done, 150));
    }
    return times;
  })`;
}
