import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { controlDb } from "../db/shards";
import { jsonBodyLimit } from "./body-limit";
import { publicHost } from "./public-host";

/**
 * The inner of the two global layers (src/app.ts): the control database handle, then the JSON body
 * cap (body-limit.ts), then the custom-host boundary (public-host.ts). The last two are middlewares of
 * their own (and tested as such), called here nested in one hono layer rather than registered as three:
 * each layer costs every request a dispatch frame, a closure and a promise (docs/performance.md, Hot
 * paths). An error one of them throws reaches hono at this layer, which answers it with the error
 * handler; the outer layer (request-id.ts) then stamps that answer as any other.
 */
export const requestGuards = createMiddleware<AppEnv>(async (c, next) => {
  c.set("control", controlDb(c.env));
  // a middleware may answer by returning a Response, as in hono's own chain
  const answer = (res: unknown) => {
    if (res instanceof Response) c.res = res;
  };
  answer(await jsonBodyLimit(c, async () => answer(await publicHost(c, next))));
});
