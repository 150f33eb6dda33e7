// What a browser does during a single sign-on, over real HTTP: keeps cookies, follows redirects
// one by one (so that a test can stop at the callback, or replay it) and submits the provider's
// own login form.
import { createServer } from "node:net";

/** A free TCP port on 127.0.0.1, for a server whose URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

export class SsoBrowser {
  /** One jar for all: cookies do not tell ports apart, and every server here is 127.0.0.1. */
  readonly cookies = new Map<string, string>();

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; json?: unknown } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: "text/html" };
    if (this.cookies.size > 0) headers["cookie"] = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (init.form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const body =
      init.form !== undefined
        ? new URLSearchParams(init.form).toString()
        : init.json !== undefined
          ? JSON.stringify(init.json)
          : undefined;
    const response = await fetch(url, {
      method: init.method ?? "GET",
      headers,
      redirect: "manual",
      ...(body === undefined ? {} : { body }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const [name = "", ...value] = pair.trim().split("=");
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value.join("=") === "") this.cookies.delete(name);
      else this.cookies.set(name, value.join("="));
    }
    return response;
  }

  /** Follows redirects from `url` until `stop` says so of the next location, or an answer that is not one. */
  async follow(
    url: string,
    stop: (location: URL) => boolean = () => false,
  ): Promise<{ url: URL; response?: Response }> {
    let current = new URL(url);
    for (let hop = 0; hop < 20; hop++) {
      const response = await this.request(current.href);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || location === null)
        return { url: current, response };
      await response.body?.cancel();
      current = new URL(location, current);
      if (stop(current)) return { url: current };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /**
   * From svc's login URL through the provider's login page (as `login`) to the moment the
   * provider redirects back: returns that callback URL, not yet visited.
   */
  async signInAtProvider(loginUrl: string, login: string, callbackPrefix: string): Promise<URL> {
    const isCallback = (u: URL) => u.href.startsWith(callbackPrefix);
    const page = await this.follow(loginUrl, isCallback);
    if (isCallback(page.url)) return page.url;
    const html = (await page.response?.text()) ?? "";
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (action === undefined) throw new Error(`no login form at ${page.url.href}: ${html.slice(0, 300)}`);
    const submitted = await this.request(new URL(action.replaceAll("&amp;", "&"), page.url).href, {
      method: "POST",
      form: { prompt: "login", login, password: "any password" },
    });
    const next = submitted.headers.get("location");
    if (next === null)
      throw new Error(`the login form answered ${submitted.status}: ${await submitted.text()}`);
    const back = await this.follow(new URL(next, page.url).href, isCallback);
    if (!isCallback(back.url)) throw new Error(`the provider did not redirect back: ${back.url.href}`);
    return back.url;
  }

  /** What the dashboard's /sso page does with a code: POSTs it, with this browser's cookies. */
  async redeem(apiUrl: string, code: string): Promise<{ status: number; json: unknown }> {
    const response = await this.request(`${apiUrl}/api/v1/auth/sso/session`, {
      method: "POST",
      json: { code },
    });
    return { status: response.status, json: await response.json() };
  }

  /** Visits the callback; returns where svc sends the browser (the dashboard's /sso page) and its fragment. */
  async callback(url: URL): Promise<{ status: number; landing: URL; fragment: URLSearchParams }> {
    const response = await this.request(url.href);
    await response.body?.cancel();
    const landing = new URL(response.headers.get("location") ?? "about:blank", url);
    return { status: response.status, landing, fragment: new URLSearchParams(landing.hash.slice(1)) };
  }
}
