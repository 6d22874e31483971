import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The one logger (docs/ARCHITECTURE.md, Logging): one JSON object per line on the console, which
 * Workers Logs and `wrangler tail` index by field. Every line carries the fields of the unit of work
 * it belongs to, taken from an AsyncLocalStorage scope (nodejs_compat, as src/db/sessions.ts):
 * - a request: requestId, method, route (the matched route pattern), and tenantId and shard once the
 *   tenant is resolved (middleware/request-id.ts opens the scope, middleware/tenant.ts adds the tenant,
 *   mcp/skills/run.ts the tool's tenant on both MCP protocol legs);
 * - a queue batch: queue (background/queue.ts), and shard where a consumer runs per shard;
 * - a cron run: cron (the expression), sweep (the sweep's name) and shard (background/cron.ts, shards.ts).
 * `console.*` is called here only (test/node/console-only-in-logger.test.ts checks src/).
 */

export type Level = "info" | "warn" | "error";

/** What a unit of work stamps on each of its lines. */
export interface LogContext {
  requestId?: string;
  method?: string;
  route?: string;
  tenantId?: string;
  shard?: number;
  queue?: string;
  cron?: string;
  sweep?: string;
}

const scope = new AsyncLocalStorage<LogContext>();

/** Runs `work` with these fields added to the current scope's (the outer scope is left unchanged). */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  return scope.run({ ...scope.getStore(), ...fields }, work);
}

/** Adds fields to the current scope, e.g. the tenant once a request has resolved it; no-op outside a scope. */
export function addLogContext(fields: LogContext): void {
  const store = scope.getStore();
  if (store) Object.assign(store, fields);
}

function stamped(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(scope.getStore() ?? {})) if (value !== undefined) out[key] = value;
  return out;
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, message, ...stamped(), ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
};
