import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { AppEnv } from "../app-env";
import { newId } from "../lib/ids";
import { withLogContext } from "../lib/log";

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * Echoes a sane incoming x-request-id, or mints one; every response carries it. The rest of the
 * request runs in its log scope (src/lib/log.ts): each line carries the id, the method and the
 * matched route pattern (read when the line is written: the route is known once routing ran).
 */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && SAFE_ID.test(incoming) ? incoming : `req_${newId()}`;
  c.set("requestId", id);
  c.header("x-request-id", id);
  await withLogContext({ requestId: id, method: c.req.method, route: () => routePath(c, -1) || undefined }, next);
  c.res.headers.set("x-request-id", id);
});
