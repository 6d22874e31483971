import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { controlDb } from "../../src/db/shards";
import { startBrowserSession } from "../../src/middleware/browser-session";
import { request } from "../helpers/http";
import { TEST_PASSWORD } from "../helpers/seed";

/*
 * A browser of the console over HTTP in the workers pool: a cookie jar, the Origin a browser sends with a
 * form post, and the session's CSRF token read from the page as a browser would submit it.
 */

export const ORIGIN = "http://localhost:8787";

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class ConsoleBrowser {
  readonly cookies = new Map<string, string>();
  csrf = "";

  /** `host`: a custom hostname the browser talks to (in any spelling a client sends) */
  constructor(readonly host?: string) {}

  private get base() {
    return this.host ? `http://${this.host}` : undefined;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { accept: "text/html", ...extra };
    if (this.cookies.size) h.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    return h;
  }

  private keep(res: { headers: Headers }) {
    for (const line of res.headers.getAll("set-cookie")) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/max-age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private read(res: { status: number; headers: Headers; text: string }): Page {
    this.keep(res);
    const token = /name="csrf" value="([^"]*)"/.exec(res.text)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, headers: res.headers, text: res.text, location: res.headers.get("location") };
  }

  async get(path: string): Promise<Page> {
    return this.read(await request("GET", path, { headers: this.headers(), unchecked: true, base: this.base }));
  }

  /**
   * A form post as a browser sends it: url-encoded (multipart when a field is a file), with Origin, and the page's
   * CSRF token unless told otherwise.
   */
  async post(
    path: string,
    fields: Record<string, string | string[] | File> = {},
    o: { origin?: string | null; csrf?: string | null; accept?: string } = {},
  ): Promise<Page> {
    const multipart = Object.values(fields).some((v) => v instanceof File);
    const body = multipart ? new FormData() : new URLSearchParams();
    const csrf = o.csrf === undefined ? this.csrf : o.csrf;
    if (csrf !== null && csrf !== "") body.set("csrf", csrf);
    for (const [k, v] of Object.entries(fields))
      for (const one of Array.isArray(v) ? v : [v]) (body as FormData).append(k, one);
    const origin = o.origin === undefined ? (this.base ? new URL(this.base).origin : ORIGIN) : o.origin;
    // a multipart body sets its own content type (with its boundary)
    const headers = this.headers({
      ...(multipart ? {} : { "content-type": "application/x-www-form-urlencoded" }),
      ...(o.accept ? { accept: o.accept } : {}),
    });
    if (origin) headers.origin = origin;
    return this.read(
      await request("POST", path, {
        headers,
        body: multipart ? body : body.toString(),
        unchecked: true,
        base: this.base,
      }),
    );
  }

  /** A form with a file field as a browser sends it: multipart, with Origin and the page's CSRF token. */
  async upload(path: string, fields: Record<string, string | File>): Promise<Page> {
    const body = new FormData();
    if (this.csrf) body.set("csrf", this.csrf);
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    const origin = this.base ? new URL(this.base).origin : ORIGIN;
    return this.read(
      await request("POST", path, { headers: this.headers({ origin }), body, unchecked: true, base: this.base }),
    );
  }

  /** Posts a form that redirects (Post/Redirect/Get) and lands where it leads; the text of that page. */
  async submit(path: string, fields: Record<string, string | string[] | File> = {}): Promise<string> {
    const res = await this.post(path, fields);
    expect(res.status, `${path}: ${textOf(res.text).slice(0, 300)}`).toBe(303);
    const landed = await this.follow(res);
    expect(landed.status).toBe(200);
    return textOf(landed.text);
  }

  /** Follows a redirect chain from a response (GETs). */
  async follow(page: Page, limit = 5): Promise<Page> {
    let p = page;
    for (let i = 0; i < limit && p.location; i++)
      p = await this.get(new URL(p.location, ORIGIN).pathname + new URL(p.location, ORIGIN).search);
    return p;
  }

  /**
   * Signed in without the password form: the session the form's success opens (the same `startBrowserSession`,
   * method "password"), then the console's home loaded as after a sign-in (its CSRF token read). For tests of what a
   * signed-in person sees and may do; the form itself is proven by test/console/sessions.test.ts and flows.test.ts.
   * A password sign-in verifies scrypt at production cost, ~0.3 s of CPU each. Answers the landing page.
   */
  async seededSession(userId: string): Promise<Page> {
    const { cookie } = await startBrowserSession(controlDb(env), env, userId, "password");
    this.keep({ headers: new Headers([["set-cookie", cookie]]) });
    return this.follow(await this.get("/"));
  }

  /** Signs in from the sign-in page; answers the sign-in post's own response (the page it leads to is loaded too). */
  async signIn(email: string, password = TEST_PASSWORD): Promise<Page> {
    await this.get("/");
    const res = await this.post("/app/sign-in", { email, password }, { csrf: null });
    if (res.status === 303) await this.follow(res);
    return res;
  }
}

/**
 * A test file's browsers, one per person, each signed in (a seeded session) the first time it is asked for.
 * `users` is read then, so it may name a world made in a beforeAll.
 */
export function browsersOf<K extends string>(users: () => Record<K, { id: string }>) {
  const open = new Map<K, ConsoleBrowser>();
  return async (who: K): Promise<ConsoleBrowser> => {
    const existing = open.get(who);
    if (existing) return existing;
    const b = new ConsoleBrowser();
    await b.seededSession(users()[who].id);
    open.set(who, b);
    return b;
  };
}

/** The text of a page without tags, for assertions about what a person reads. */
export const textOf = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
