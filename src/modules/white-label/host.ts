import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../app-env";
import { customHostOwner } from "./resolve";

const primaryHosts = new Map<string, string>();
const primaryHost = (publicBaseUrl: string) => {
  let h = primaryHosts.get(publicBaseUrl);
  if (h === undefined) {
    h = new URL(publicBaseUrl).hostname.toLowerCase();
    primaryHosts.set(publicBaseUrl, h);
  }
  return h;
};

/** Only DNS names with a dot can be custom hostnames: localhost and IP literals never are. */
const mayBeCustom = (host: string) => host.includes(".") && !/^[\d.]+$/.test(host) && !host.startsWith("[");

/**
 * Host routing: a request arriving on another host than PUBLIC_BASE_URL's is looked up among the
 * active custom hostnames (isolate cache, then one D1 read per host per minute) and, when it is
 * one, `c.var.customHost` names its owner. Pages then show that owner's brand and refuse tokens of
 * tenants the host does not serve (404). Requests on the platform's own host cost nothing.
 */
export const customHostContext = createMiddleware<AppEnv>(async (c, next) => {
  const host = new URL(c.req.url).hostname.toLowerCase();
  if (host !== primaryHost(c.env.PUBLIC_BASE_URL) && mayBeCustom(host)) c.set("customHost", await customHostOwner(c.var.control, host));
  await next();
});
