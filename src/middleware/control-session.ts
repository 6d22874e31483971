import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { CONTROL_BOOKMARK_HEADER, inSession, isWrite, validBookmark } from "../db/sessions";
import { controlD1, controlDb } from "../db/shards";

/**
 * The control database read through a D1 session for the authenticated surfaces (/me, /admin,
 * /agency, /v1) and /auth (docs/scaling.md): reads "first-unconstrained", writes "first-primary", or the
 * client's `x-d1-control-bookmark` (read-your-writes). The answer carries the session's latest
 * bookmark in that header. `controlDb(env)` and `c.var.control` both reach the session; runs before
 * authenticate, so the principal lookup is part of it.
 */
export const controlSession = createMiddleware<AppEnv>(async (c, next) => {
  const d1 = controlD1(c.env);
  c.set("control", controlDb(c.env));
  const bookmark = await inSession(
    d1,
    { bookmark: validBookmark(c.req.header(CONTROL_BOOKMARK_HEADER)), write: isWrite(c.req.method) },
    next,
  );
  if (bookmark) c.res.headers.set(CONTROL_BOOKMARK_HEADER, bookmark);
});
