/** @jsxImportSource hono/jsx */
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/log";
import { type CC, page, sentenceOf } from "./kit";

/*
 * The console's answers when a page cannot be shown, in the console's layout. Another tenant's page, an
 * unknown id and a tenant the person cannot reach are the same 404 (never "it exists but not for you").
 */

export function notFoundPage(c: CC): Promise<Response> {
  return page(
    c,
    { title: "Not found", status: 404, flash: null },
    <>
      <h1>This page does not exist here</h1>
      <p>It may have been removed, or it belongs to a business you cannot see.</p>
      <p>
        <a href="/app">Go to the console's home</a>
      </p>
    </>,
  );
}

/** A page that says why nothing is shown or done (a refusal, an expired link), in the layout. */
export function refusedPage(c: CC, text: string, status: number, title = "Not allowed"): Promise<Response> {
  return page(
    c,
    { title, status, flash: null },
    <>
      <h1>{title}</h1>
      <p class="error" role="alert">
        {text}
      </p>
      <p>
        <a href="/app">Go to the console's home</a>
      </p>
    </>,
  );
}

/** A post without this session's CSRF token (an old tab after signing in again, or a forged form): nothing changed. */
export const formExpiredPage = (c: CC) =>
  refusedPage(
    c,
    "This form had expired or was not sent by this console, so nothing was changed. Go back, reload the page and try again.",
    403,
    "Form refused",
  );

export const consoleErrors: ErrorHandler<AppEnv> = async (err, c) => {
  if (err instanceof ApiError) {
    if (err.code === "NOT_FOUND") return notFoundPage(c);
    // enterTenant's "Tenant not accessible" (no access at all) is a 404 on the console, like an unknown tenant
    if (err.code === "FORBIDDEN" && !c.var.access) return notFoundPage(c);
    for (const [k, v] of Object.entries(err.headers ?? {})) if (k.toLowerCase() === "retry-after") c.header(k, v);
    return refusedPage(c, sentenceOf(c, err), err.status, err.status === 403 ? "Not allowed" : "This did not work");
  }
  // hono/csrf: a form posted from another site
  if (err instanceof HTTPException && err.status === 403)
    return refusedPage(c, "This form was sent from another site, so nothing was changed.", 403, "Form refused");
  if (err instanceof HTTPException && err.status < 500)
    return refusedPage(c, "The request could not be read.", err.status, "This did not work");
  log.error(String(err), { stack: (err as Error)?.stack });
  return refusedPage(
    c,
    `Something went wrong on our side; nothing more is known to you than this reference: ${c.var.requestId}.`,
    500,
    "Something went wrong",
  );
};
