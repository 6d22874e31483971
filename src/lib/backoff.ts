/**
 * Exponential backoff with full jitter, in seconds, for queue retries:
 * attempt 1 -> up to base, attempt n -> up to base * 2^(n-1), capped.
 */
export function backoffSeconds(attempt: number, baseSeconds = 10, capSeconds = 3600, random = Math.random): number {
  const ceiling = Math.min(capSeconds, baseSeconds * 2 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}
