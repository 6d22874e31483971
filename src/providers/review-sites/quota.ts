import type { ProviderQuota, QuotaRule } from "../../durable/provider-quota";
import { ReviewSiteError } from "./types";

/** A read (list, get) or an edit (reply, delete reply): providers meter edits separately. */
export type CallKind = "read" | "edit";

/**
 * Asked before every call to a provider: grants it or throws QuotaWaitError, never sleeps (a queue
 * consumer hands the rest of its work to a delayed message instead). `backOff` is told of a 429.
 */
export interface QuotaGate {
  take(kind: CallKind): Promise<void>;
  backOff(kind: CallKind, retryAfterSeconds: number): Promise<void>;
}

/** Our own limiter said wait: the provider was not called. A 429 like the provider's, marked `local`. */
export class QuotaWaitError extends ReviewSiteError {
  readonly local = true;
  constructor(site: string, retryAfterMs: number, what: string) {
    super(
      site,
      429,
      `${site} quota (${what}) is used up; wait ${Math.ceil(retryAfterMs / 1000)} s`,
      Math.max(1, Math.ceil(retryAfterMs / 1000)),
    );
    this.name = "QuotaWaitError";
  }
}

/**
 * Google Business Profile quotas (docs/reviews.md, "Google Business Profile rules", with sources):
 * 300 requests per minute per Cloud project and API, and 10 edits per minute per profile (fixed).
 */
export const GOOGLE_QUOTAS = {
  requestsPerMinute: { limit: 300, windowMs: 60_000 },
  editsPerMinutePerProfile: { limit: 10, windowMs: 60_000 },
} as const satisfies Record<string, QuotaRule>;

/** Without Retry-After (Google sends none on RESOURCE_EXHAUSTED) the whole account waits this long. */
export const DEFAULT_BACKOFF_SECONDS = 30;

/**
 * The gate for one Google Business Profile, backed by ProviderQuota Durable Objects shared by every
 * isolate: `google:{api}` for the project's requests per minute (one per API host: each API has its
 * own 300 QPM) and `google:profile:{accounts/a/locations/l}` for the profile's edits per minute.
 */
export function googleQuotaGate(
  ns: DurableObjectNamespace<ProviderQuota>,
  o: { api: string; profile: string; now?: () => number },
): QuotaGate {
  const now = o.now ?? Date.now;
  const project = () => ns.get(ns.idFromName(`google:${o.api}`));
  const profile = () => ns.get(ns.idFromName(`google:profile:${o.profile}`));
  return {
    async take(kind) {
      if (kind === "edit") {
        const edit = await profile().take(GOOGLE_QUOTAS.editsPerMinutePerProfile, now());
        if (!edit.granted) throw new QuotaWaitError("google", edit.retryAfterMs, "10 edits per minute per profile");
      }
      const call = await project().take(GOOGLE_QUOTAS.requestsPerMinute, now());
      if (!call.granted) throw new QuotaWaitError("google", call.retryAfterMs, "300 requests per minute per project");
    },
    async backOff(kind, retryAfterSeconds) {
      const until = now() + retryAfterSeconds * 1000;
      await (kind === "edit" ? profile() : project()).backOff(until);
    },
  };
}
