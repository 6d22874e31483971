import { encodeBase64 } from "../../lib/base64";
import { type FetchLike, ProviderError } from "./types";

/** 408, 425, 429 and every 5xx are worth retrying with backoff; other 4xx are the request's fault. */
export const isRetryableStatus = (status: number) =>
  status === 408 || status === 425 || status === 429 || status >= 500;

/**
 * Calls the provider; a network failure becomes a retryable ProviderError. The caller still checks
 * `res.ok` and turns a refusal into an error with `refusal`.
 */
export async function callProvider(provider: string, fetchImpl: FetchLike, request: Request): Promise<Response> {
  try {
    return await fetchImpl(request);
  } catch (e) {
    throw new ProviderError(`${provider}: network error: ${e instanceof Error ? e.message : String(e)}`, true);
  }
}

/** A ProviderError from a non-2xx answer, carrying the provider's own error text. */
export async function refusal(
  provider: string,
  res: Response,
  describe: (body: unknown, text: string) => string | undefined,
  retryable = isRetryableStatus(res.status),
): Promise<ProviderError> {
  const text = await res.text().catch(() => "");
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the raw text is the description
  }
  const detail = (body !== undefined ? describe(body, text) : undefined) ?? text.slice(0, 500);
  return new ProviderError(`${provider}: HTTP ${res.status}: ${detail || res.statusText}`, retryable, res.status);
}

/** Looks for a header case-insensitively in a message's header map. */
export const headerValue = (headers: Record<string, string> | undefined, name: string): string | undefined => {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
};

/** "Name <addr>" display form used by providers that take one string. */
export const mailbox = (address: string, name?: string | null) =>
  name ? `"${name.replace(/["\\]/g, "\\$&")}" <${address}>` : address;

export const basicAuth = (user: string, password: string) =>
  `Basic ${encodeBase64(new TextEncoder().encode(`${user}:${password}`))}`;
