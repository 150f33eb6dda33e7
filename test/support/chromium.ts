// The browser of every dashboard test and benchmark: Debian's Chromium (never a downloaded
// one), headless and kept off the network, driven by playwright-core.
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags that keep Chromium off the network (this machine's is closed) and quiet. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A new browser; playwright gives each launch a new, empty profile directory of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
