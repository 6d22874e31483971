import { allowInsecureWebhooks, checkOutboundUrl } from "../../lib/ssrf";
import { signWebhook } from "./signing";

export type FetchFn = typeof fetch;

const realFetch: FetchFn = (...args) => fetch(...args);
let current: FetchFn = realFetch;

/** Test seam: where outbound webhook requests go (a stand-in in tests); no argument restores fetch. */
export const setWebhookFetch = (fn?: FetchFn) => {
  current = fn ?? realFetch;
};
export const webhookFetch = (): FetchFn => current;

export const REQUEST_TIMEOUT_MS = 10_000;
const RESPONSE_EXCERPT = 1_000;

export interface AttemptResult {
  ok: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  latencyMs: number;
  error: string | null;
  /** the URL was refused by the SSRF guard: retrying cannot help */
  refused: boolean;
}

/**
 * POSTs one signed JSON body. Redirects are not followed (a 3xx is a failure), the request is
 * abandoned after 10 s, and the URL is checked by the SSRF guard again right before sending.
 */
export async function postSigned(
  env: { ALLOW_INSECURE_WEBHOOKS?: string },
  target: { url: string; secret: string; messageId: string; body: string },
  fetchFn: FetchFn = webhookFetch(),
  now = new Date(),
): Promise<AttemptResult> {
  const check = checkOutboundUrl(target.url, { allowInsecure: allowInsecureWebhooks(env) });
  if (!check.ok)
    return {
      ok: false,
      responseStatus: null,
      responseBody: null,
      latencyMs: 0,
      error: `URL refused: ${check.reason}`,
      refused: true,
    };
  const headers = await signWebhook(target.secret, target.messageId, Math.floor(now.getTime() / 1000), target.body);
  const started = Date.now();
  try {
    const res = await fetchFn(check.url.toString(), {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "reputation-ops-webhooks/1", ...headers },
      body: target.body,
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = (await res.text().catch(() => "")).slice(0, RESPONSE_EXCERPT);
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      responseStatus: res.status,
      responseBody: text || null,
      latencyMs: Date.now() - started,
      error: ok
        ? null
        : res.status >= 300 && res.status < 400
          ? `redirect ${res.status} not followed`
          : `HTTP ${res.status}`,
      refused: false,
    };
  } catch (err) {
    const timedOut = (err as Error)?.name === "TimeoutError";
    return {
      ok: false,
      responseStatus: null,
      responseBody: null,
      latencyMs: Date.now() - started,
      error: timedOut ? "timed out after 10 s" : `network error: ${String(err)}`,
      refused: false,
    };
  }
}
