import type { ContentfulStatusCode } from "hono/utils/http-status";

export const ERROR_CODES = {
  VALIDATION_ERROR: 400,
  TENANT_REQUIRED: 400,
  IDEMPOTENCY_KEY_REQUIRED: 400,
  INVALID_TOKEN: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_TRANSITION: 409,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  PUBLISH_UNSUPPORTED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_ERROR: 502,
  /** the tenant is being moved between shards (docs/scaling.md): writes wait, with Retry-After */
  TENANT_MOVING: 503,
  TIMEOUT: 504,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ValidationIssue {
  path: string;
  message: string;
}

/** The one error type services throw; the app's error handler turns it into an ErrorResponse. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_CODES[code];
  }

  toBody() {
    return { error: this.message, code: this.code, ...(this.details ? { details: this.details } : {}) };
  }
}

export const notFound = (what = "Resource") => new ApiError("NOT_FOUND", `${what} not found`);
/** `reason`: a stable name for why (details.reason), so a client (the console) can word it for a person. */
export const forbidden = (message = "Not allowed", reason?: string) =>
  new ApiError("FORBIDDEN", message, reason ? { reason } : undefined);
export const conflict = (message: string, reason?: string) =>
  new ApiError("CONFLICT", message, reason ? { reason } : undefined);
export const unauthenticated = (message = "Authentication required") =>
  new ApiError("UNAUTHENTICATED", message, undefined, { "WWW-Authenticate": 'Bearer realm="api"' });
export const validationError = (issues: ValidationIssue[], message = "Invalid request") =>
  new ApiError("VALIDATION_ERROR", message, { issues });
export const invalidTransition = (from: string, to: string, what = "Resource") =>
  new ApiError("INVALID_TRANSITION", `${what} cannot move from ${from} to ${to}`, { from, to });
