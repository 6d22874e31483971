/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Child } from "hono/jsx";
import type { AppEnv } from "../../app-env";
import type { TenantRole } from "../../db/schema";
import { ApiError, type ValidationIssue, validationError } from "../../lib/errors";
import { htmlDocument } from "../../lib/html";
import { assertAgencyAdmin, assertPlatformAdmin } from "../../middleware/tenant";
import { type Principal, roleAtLeast } from "../identity/access";
import { hostBrand } from "../white-label/resolve";
import { type Flash, type Frame, Layout, ROLE_LABEL, type Section, type TenantInFrame } from "./layout";
import { csrfToken } from "./session";

/*
 * What every console handler uses: render a page in the layout, redirect after a post with a one-time
 * message (Post/Redirect/Get), read a form, and turn a service's ApiError into a sentence.
 */

export type CC = Context<AppEnv>;

const FLASH_COOKIE = "console-flash";

/** The message the next page shows once (set by a post, read by the GET it redirects to). */
export function setFlash(c: CC, flash: Flash): void {
  setCookie(c, FLASH_COOKIE, `${flash.kind}:${flash.text}`.slice(0, 600), {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: 120,
  });
}

function takeFlash(c: CC): Flash | null {
  const raw = getCookie(c, FLASH_COOKIE);
  if (!raw) return null;
  deleteCookie(c, FLASH_COOKIE, { path: "/" });
  const at = raw.indexOf(":");
  const kind = raw.slice(0, at);
  return kind === "notice" || kind === "error" ? { kind, text: raw.slice(at + 1) } : null;
}

/** The tenant of a /app/t/{tenantId} page as the layout shows it (after enterTenant resolved the access). */
export const tenantInFrame = (c: CC, name: string): TenantInFrame => ({
  id: c.var.access.tenantId,
  name,
  role: c.var.access.role,
  via: c.var.access.via,
});

/** Whether a REST door's own check (assertAgencyAdmin, assertPlatformAdmin) admits the person. */
function passes(check: (p: Principal) => void, p: Principal): boolean {
  try {
    check(p);
    return true;
  } catch {
    return false;
  }
}

/** The pages outside a tenant the person opens (REST /agency's and /admin's checks): what the header links. */
export const outsidePages = (p: Principal) => ({
  agency: passes(assertAgencyAdmin, p),
  platform: passes(assertPlatformAdmin, p),
});

/** A whole page in the layout: the host's brand, the signed-in person, the CSP nonce, the one-time message. */
export async function page(
  c: CC,
  o: {
    title: string;
    section?: Section;
    tenant?: TenantInFrame | null;
    status?: number;
    flash?: Flash | null;
    headers?: Record<string, string>;
  },
  body: Child,
): Promise<Response> {
  const session = c.var.consoleSession ?? null;
  const frame: Frame = {
    title: o.title,
    nonce: c.var.secureHeadersNonce ?? "",
    brand: await hostBrand(c.var.control, c.var.customHost),
    person: session
      ? {
          name: session.principal.name,
          email: session.principal.email,
          ...outsidePages(session.principal),
        }
      : null,
    csrf: session ? await csrfToken(c.env, session) : null,
    tenant: o.tenant ?? null,
    section: o.section,
    flash: o.flash ?? takeFlash(c),
  };
  return c.body(htmlDocument(<Layout {...frame}>{body}</Layout>), (o.status ?? 200) as 200, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    ...o.headers,
  });
}

/** 303 to a page of ours, with a message for it. */
export function redirectTo(c: CC, location: string, flash?: Flash, headers: Record<string, string> = {}): Response {
  if (flash) setFlash(c, flash);
  c.header("cache-control", "no-store");
  for (const [k, v] of Object.entries(headers)) c.header(k, v, { append: k.toLowerCase() === "set-cookie" });
  return c.redirect(location, 303);
}

/**
 * The form's fields (url-encoded or multipart); a field given several times reads as all of its values; a
 * multipart file field (a CSV) as its File when one was chosen.
 */
export async function formOf(
  c: CC,
): Promise<{ one(name: string): string; all(name: string): string[]; file(name: string): File | undefined }> {
  const body = (await c.req.parseBody({ all: true }).catch(() => ({}))) as Record<string, unknown>;
  const values = (name: string) => {
    const v = body[name];
    return Array.isArray(v) ? v : v === undefined ? [] : [v];
  };
  const list = (name: string) => values(name).filter((x): x is string => typeof x === "string");
  // a browser sends an empty file part when no file was chosen
  const file = (name: string) => values(name).find((x): x is File => x instanceof File && x.size > 0);
  return { one: (name) => list(name)[0] ?? "", all: list, file };
}

/** A query or form read by its REST twin's schema: the parsed value, or the same 400 VALIDATION_ERROR. */
export function parsedOr400<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  return parsed.data;
}

/**
 * Whether `e` is the REST schema's 400 refusing one of these fields (a blank note, a reply without text): a
 * page that words that refusal as its own sentence catches it after callOperation ran the schema.
 */
export function refusesFields(e: unknown, fields: readonly string[]): boolean {
  if (!(e instanceof ApiError) || e.code !== "VALIDATION_ERROR") return false;
  const issues = (e.details?.issues as ValidationIssue[] | undefined) ?? [];
  return issues.some((i) => fields.includes(i.path.split(".")[0] ?? ""));
}

/** The token every form carries (the CSRF check runs in guards.ts before any handler). */
export const csrfOf = async (c: CC) => (c.var.consoleSession ? csrfToken(c.env, c.var.consoleSession) : "");

const issueText = (issues: ValidationIssue[]) =>
  issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");

/** A page's own wording for a service's refusals, by the refusal's `details.reason` (lib/errors.ts). */
export type Refusals = Partial<Record<string, string>>;

/** A service's refusal as a sentence for the person (our own messages; never a stack or SQL). */
export function sentenceOf(c: CC, e: ApiError, refusals: Refusals = {}): string {
  const reason = e.details?.reason;
  const worded = typeof reason === "string" ? refusals[reason] : undefined;
  if (worded) return worded;
  switch (e.code) {
    case "VALIDATION_ERROR":
      return `Please check the form: ${issueText((e.details?.issues as ValidationIssue[]) ?? []) || e.message}.`;
    case "FORBIDDEN":
      return c.var.access
        ? `Your role here (${ROLE_LABEL[c.var.access.role]}) does not allow this.`
        : "You are not allowed to do this.";
    case "INVALID_TRANSITION":
    case "CONFLICT":
      return `This could not be done: ${e.message}. Reload the page to see its current state.`;
    case "RATE_LIMITED":
      return "Too many attempts; wait a few minutes and try again.";
    case "TENANT_MOVING":
      return "This business is being moved to another database for a few seconds; try again shortly.";
    case "PUBLISH_UNSUPPORTED":
    case "UPSTREAM_ERROR":
      return e.message;
    default:
      return e.message;
  }
}

/**
 * Runs a form's action; on a service's refusal (a role, a state move, bad input) goes back to `back` with
 * the refusal as the message, so nothing is lost but the click. Not found stays a 404 (errors.tsx).
 */
export async function act(c: CC, back: string, run: () => Promise<Response>, refusals?: Refusals): Promise<Response> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof ApiError) || e.code === "NOT_FOUND" || e.code === "UNAUTHENTICATED") throw e;
    return redirectTo(c, back, { kind: "error", text: sentenceOf(c, e, refusals) });
  }
}

/** Whether the person's role in this tenant reaches `min` (what the page offers; the routes check again). */
export const can = (c: CC, min: TenantRole) => roleAtLeast(c.var.access.role, min);

/**
 * Runs a REST route's own role middleware (canWrite, canManage, ...) for a page that calls the route's
 * service: the same check, the same 403.
 */
export async function asRest(c: CC, middleware: MiddlewareHandler<AppEnv>): Promise<void> {
  await middleware(c, async () => {});
}

/** Where a form returns to: a page of this tenant named by the form, else the tenant's home. */
export function backOf(c: CC, wanted: string): string {
  const base = `/app/t/${encodeURIComponent(c.var.access.tenantId)}`;
  return (wanted === base || wanted.startsWith(`${base}/`) || wanted.startsWith(`${base}?`)) &&
    safeNext(wanted) === wanted
    ? wanted
    : base;
}

/** A path of ours to return to after signing in (never another site's: an open redirect). */
export const safeNext = (next: string | undefined | null): string =>
  next && /^\/app(\/[A-Za-z0-9._~\-/%?=&]*)?$/.test(next) && !next.includes("//") ? next : "/app";
