import { DurableObject } from "cloudflare:workers";
import type { SessionIdentity } from "../modules/mcp/identity";

export interface McpSessionState {
  id: string;
  identity: SessionIdentity;
  protocolVersion: string;
  /** the bearer credential sealed with ENCRYPTION_KEY, so it can be re-checked without the client resending it */
  sealedCredential: string;
  verifiedAt: number;
  createdAt: number;
  lastSeenAt: number;
}

export interface SessionLimits {
  rateLimit: number;
  windowSeconds: number;
  maxSessions: number;
  idleTtlMs: number;
}

export interface RateState {
  limit: number;
  remaining: number;
  /** seconds until the window resets */
  resetSeconds: number;
  windowSeconds: number;
}

export type OpenResult =
  | { status: "opened"; rate: RateState }
  | { status: "rate_limited"; rate: RateState }
  | { status: "too_many_sessions"; rate: RateState; retryAfter: number };

export type UseResult =
  | { status: "ok"; session: McpSessionState; rate: RateState }
  | { status: "rate_limited"; session: McpSessionState; rate: RateState }
  | { status: "unknown" };

/** A confirmation the server asked for: what it is bound to (a keyed digest, no arguments in clear) and until when. */
export interface PendingConfirmation {
  digest: string;
  expiresAt: number;
}

export type RedeemResult = "ok" | "unknown" | "expired" | "mismatch";

interface Window {
  start: number;
  count: number;
}

/**
 * One instance per tenant: that tenant's MCP sessions, its request counter (a fixed window) and the
 * confirmations its callers were asked for (single-use, expiring).
 * Every /mcp request after initialize goes through `use`, which checks the session, counts the
 * request and refreshes the idle timer in one call. Sessions idle past the TTL are gone, so the
 * client re-initializes (404).
 */
export class McpSessions extends DurableObject {
  async open(
    session: Omit<McpSessionState, "createdAt" | "lastSeenAt" | "verifiedAt">,
    limits: SessionLimits,
    now = Date.now(),
  ): Promise<OpenResult> {
    const rate = await this.count(limits, now);
    if (!rate.allowed) return { status: "rate_limited", rate: rate.state };
    const live = await this.live(limits.idleTtlMs, now);
    if (live.length >= limits.maxSessions) {
      const soonest = Math.min(...live.map((s) => s.lastSeenAt + limits.idleTtlMs));
      return {
        status: "too_many_sessions",
        rate: rate.state,
        retryAfter: Math.max(1, Math.ceil((soonest - now) / 1000)),
      };
    }
    await this.ctx.storage.put(`s:${session.id}`, { ...session, createdAt: now, lastSeenAt: now, verifiedAt: now });
    return { status: "opened", rate: rate.state };
  }

  async use(sessionId: string, limits: SessionLimits, now = Date.now()): Promise<UseResult> {
    const session = await this.ctx.storage.get<McpSessionState>(`s:${sessionId}`);
    if (!session) return { status: "unknown" };
    if (now - session.lastSeenAt > limits.idleTtlMs) {
      await this.ctx.storage.delete(`s:${sessionId}`);
      return { status: "unknown" };
    }
    const rate = await this.count(limits, now);
    if (!rate.allowed) return { status: "rate_limited", session, rate: rate.state };
    session.lastSeenAt = now;
    await this.ctx.storage.put(`s:${sessionId}`, session);
    return { status: "ok", session, rate: rate.state };
  }

  /** Counts a request that has no session yet (e.g. a refused initialize). */
  async hit(limits: SessionLimits, now = Date.now()): Promise<{ allowed: boolean; state: RateState }> {
    return this.count(limits, now);
  }

  /** Records a fresh credential check (and a rotated credential, e.g. a refreshed OAuth token). */
  async verified(
    sessionId: string,
    identity: SessionIdentity,
    sealedCredential: string,
    now = Date.now(),
  ): Promise<void> {
    const session = await this.ctx.storage.get<McpSessionState>(`s:${sessionId}`);
    if (!session) return;
    await this.ctx.storage.put(`s:${sessionId}`, { ...session, identity, sealedCredential, verifiedAt: now });
  }

  /**
   * Records a confirmation the server is asking for (src/modules/mcp/confirmations.ts). Expired ones
   * are dropped here, so the tenant's storage holds only live asks.
   */
  async issueConfirmation(nonce: string, pending: PendingConfirmation, now = Date.now()): Promise<void> {
    const all = await this.ctx.storage.list<PendingConfirmation>({ prefix: "c:" });
    const expired = [...all].filter(([, p]) => p.expiresAt < now).map(([k]) => k);
    if (expired.length) await this.ctx.storage.delete(expired);
    await this.ctx.storage.put(`c:${nonce}`, pending);
  }

  /**
   * Spends a confirmation: whatever the outcome the nonce is deleted (single use, and a wrong
   * presentation burns it), then it counts only if unexpired and bound to the same call.
   */
  async redeemConfirmation(nonce: string, digest: string, now = Date.now()): Promise<RedeemResult> {
    const pending = await this.ctx.storage.get<PendingConfirmation>(`c:${nonce}`);
    if (!pending) return "unknown";
    await this.ctx.storage.delete(`c:${nonce}`);
    if (pending.expiresAt < now) return "expired";
    return pending.digest === digest ? "ok" : "mismatch";
  }

  async close(sessionId: string): Promise<boolean> {
    return this.ctx.storage.delete(`s:${sessionId}`);
  }

  async liveCount(idleTtlMs: number, now = Date.now()): Promise<number> {
    return (await this.live(idleTtlMs, now)).length;
  }

  private async count(limits: SessionLimits, now: number): Promise<{ allowed: boolean; state: RateState }> {
    const windowMs = limits.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const stored = await this.ctx.storage.get<Window>("rate");
    const w = stored && stored.start === start ? stored : { start, count: 0 };
    const resetSeconds = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    const state = (count: number): RateState => ({
      limit: limits.rateLimit,
      remaining: Math.max(0, limits.rateLimit - count),
      resetSeconds,
      windowSeconds: limits.windowSeconds,
    });
    if (w.count >= limits.rateLimit) return { allowed: false, state: state(w.count) };
    w.count += 1;
    await this.ctx.storage.put("rate", w);
    return { allowed: true, state: state(w.count) };
  }

  private async live(idleTtlMs: number, now: number): Promise<McpSessionState[]> {
    const all = await this.ctx.storage.list<McpSessionState>({ prefix: "s:" });
    const expired = [...all].filter(([, s]) => now - s.lastSeenAt > idleTtlMs).map(([k]) => k);
    if (expired.length) await this.ctx.storage.delete(expired);
    return [...all.values()].filter((s) => now - s.lastSeenAt <= idleTtlMs);
  }
}
