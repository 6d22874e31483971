import type { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { ApiError } from "../lib/errors";
import { errors } from "../lib/openapi";

/** The largest JSON request body (the biggest field, a template's bodyHtml, is 100,000 characters). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

const limit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw new ApiError("PAYLOAD_TOO_LARGE", `JSON bodies are limited to ${MAX_JSON_BODY_BYTES} bytes`);
  },
});

/**
 * Caps JSON request bodies before anything parses them (OWASP API4). CSV uploads and the SAML
 * form post have their own limits; /mcp and /mcp/readonly have their own (4 MB, JSON-RPC error shape).
 */
export const jsonBodyLimit = createMiddleware<AppEnv>(async (c, next) => {
  // a GET or HEAD has no body to cap (fetch refuses to send one): the public hot paths skip the rest
  const method = c.req.method;
  if (method === "GET" || method === "HEAD") return next();
  const type = c.req.header("content-type") ?? "";
  if (!type.includes("json") || c.req.path === "/mcp" || c.req.path === "/mcp/readonly") return next();
  return limit(c, next);
});

/** Documents the 413 on every operation that takes a JSON body. */
export function documentJsonBodyLimit(registry: OpenAPIHono["openAPIRegistry"]) {
  for (const d of registry.definitions) {
    if (d.type !== "route") continue;
    const content = d.route.request?.body?.content as Record<string, unknown> | undefined;
    if (content?.["application/json"] && !d.route.responses[413]) d.route.responses[413] = errors[413];
  }
}
