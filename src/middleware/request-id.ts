import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { newId } from "../lib/ids";

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Echoes a sane incoming x-request-id, or mints one; every response carries it. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && SAFE_ID.test(incoming) ? incoming : `req_${newId()}`;
  c.set("requestId", id);
  c.header("x-request-id", id);
  await next();
  c.res.headers.set("x-request-id", id);
});
