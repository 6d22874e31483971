/**
 * A site's published call limits, spent before each call: when the budget is gone the client answers
 * itself with a 429 and Retry-After (the same refusal the site would give), so the sync retries later
 * instead of spending the site's patience. Trustpilot recommends staying under 833 calls per 5 minutes
 * and 10,000 per hour (https://documentation-apidocumentation.trustpilot.com/get-started/rate-limiting).
 */
export interface CallWindow {
  limit: number;
  windowSeconds: number;
}

export const TRUSTPILOT_WINDOWS: CallWindow[] = [
  { limit: 833, windowSeconds: 300 },
  { limit: 10_000, windowSeconds: 3600 },
];

/** Takes one call from every window; `retryAfter` (seconds) when a window is spent. */
export type CallBudget = () => Promise<{ allowed: boolean; retryAfter: number }>;

/** A fetch that spends the budget first and answers 429 (Retry-After) itself when it is gone. */
export function budgetedFetch(fetchFn: typeof fetch, budget: CallBudget): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const d = await budget();
    if (!d.allowed) {
      return new Response(
        JSON.stringify({
          message: "Call budget spent: Trustpilot asks for at most 833 calls per 5 minutes and 10,000 per hour",
        }),
        {
          status: 429,
          headers: { "content-type": "application/json", "retry-after": String(Math.max(1, d.retryAfter)) },
        },
      );
    }
    return fetchFn(input, init);
  }) as typeof fetch;
}
