import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../app-env";
import { ApiError } from "./errors";
import { log } from "./log";

const send = (c: Context<AppEnv>, err: ApiError) => {
  for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
  return c.json(err.toBody(), err.status);
};

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return send(c, err);
  if (err instanceof HTTPException) {
    // hono's validators reject malformed JSON (400) and a body of another media type (415):
    // both are bad input, so both are the one VALIDATION_ERROR envelope
    if (err.status === 400 || err.status === 415) {
      const message =
        err.status === 415 ? "Unsupported Content-Type for this route" : err.message || "Malformed request body";
      return send(c, new ApiError("VALIDATION_ERROR", message, { issues: [{ path: "body", message }] }));
    }
    if (err.status === 413) return send(c, new ApiError("PAYLOAD_TOO_LARGE", "Payload too large"));
    if (err.status === 401) return send(c, new ApiError("UNAUTHENTICATED", "Authentication required"));
  }
  log.error(String(err), { stack: (err as Error)?.stack });
  return send(c, new ApiError("INTERNAL", "Internal error", { requestId: c.var.requestId }));
};

export const onNotFound: NotFoundHandler<AppEnv> = (c) =>
  send(c, new ApiError("NOT_FOUND", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`));
