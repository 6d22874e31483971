/**
 * Retry schedule: the delay before attempt n+1 after attempt n failed. Nine attempts over about
 * 23.6 hours (plus jitter), then the delivery is failed and dead-lettered.
 */
export const RETRY_DELAYS_SECONDS = [10, 60, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 8 * 3600, 8 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** ±10 %: spreads retries of many deliveries that failed together */
export const JITTER = 0.1;

/** Seconds to wait after failed attempt `attempt` (1-based), or null when it was the last one. */
export function retryDelaySeconds(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return null;
  return Math.max(1, Math.round(base * (1 - JITTER + 2 * JITTER * random())));
}

/** An endpoint whose every attempt has failed for this long is disabled. */
export const AUTO_DISABLE_AFTER_MS = 24 * 3600 * 1000;
