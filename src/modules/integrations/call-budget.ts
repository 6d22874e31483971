import type { Env } from "../../env";
import type { SiteConnection } from "../../providers/review-sites";
import { type CallBudget, TRUSTPILOT_WINDOWS } from "../../providers/review-sites/call-budget";

/**
 * The call budget of a connection whose site publishes limits: Trustpilot's windows, counted in the
 * RATE_LIMITER Durable Object per business unit (fixed windows, shared by every isolate and every
 * integration of that business unit). Other sites: none (their 429s are handled as they come).
 */
export function siteCallBudget(env: Env, conn: SiteConnection): CallBudget | undefined {
  if (conn.connectorType !== "trustpilot") return undefined;
  const unit = String(conn.config.businessUnitId ?? "");
  return async () => {
    for (const w of TRUSTPILOT_WINDOWS) {
      const d = await env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`trustpilot:${unit}:${w.windowSeconds}`)).hit(
        w.limit,
        w.windowSeconds,
      );
      if (!d.allowed) return { allowed: false, retryAfter: d.retryAfter };
    }
    return { allowed: true, retryAfter: 0 };
  };
}
