import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { AppEnv } from "../app-env";
import { newId } from "../lib/ids";
import { withLogContext } from "../lib/log";
import { finishHeaders } from "./security-headers";

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * The outer of the two global layers (src/app.ts): echoes a sane incoming x-request-id, or mints one,
 * and runs the rest of the request in its log scope (src/lib/log.ts): each line carries the id, the
 * method and the matched route pattern. On the way out, every response gets the id and the baseline
 * security headers (security-headers.ts), whatever answered it (a handler, the error handler, the
 * host guard's 404).
 *
 * The route is read here, not when a line is written: hono has matched the request before the first
 * middleware runs. A closure over the context in the scope's store cost every request measurably
 * (docs/performance.md, Hot paths).
 */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && SAFE_ID.test(incoming) ? incoming : `req_${newId()}`;
  c.set("requestId", id);
  await withLogContext({ requestId: id, method: c.req.method, route: routePath(c, -1) || undefined }, next);
  finishHeaders(c, id);
});
