import { DurableObject } from "cloudflare:workers";
import { safeEqual } from "../lib/crypto";

export interface McpSessionState {
  id: string;
  /**
   * A keyed hash of the principal that opened the session (src/modules/mcp/session-binding.ts). Every
   * request carries its own credential; only a request whose principal hashes to this finds the session.
   * No credential is kept.
   */
  principal: string;
  protocolVersion: string;
  createdAt: number;
  lastSeenAt: number;
  /** the client declared form elicitation in initialize (2025-06-18+): confirmations ask with elicitation/create */
  elicitation?: boolean;
  /**
   * the client declared URL-mode elicitation (2025-11-25) and not form: a confirmation sends the user to
   * the console's confirm page with an elicitation/create in `mode: "url"`
   */
  urlElicitation?: boolean;
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
  /**
   * Asked in the browser (a client without form elicitation, src/modules/mcp/confirmations.ts): what the
   * console's confirm page shows, who may confirm, and the person's decision once made. No code leaves
   * the server for these: the call's retry (or the waiting call) spends it once a person confirmed.
   */
  browser?: BrowserAsk;
}

/** Who may confirm a call in the browser: the person behind a user's credential, or a manager+ of the tenant for an API key. */
export type Confirmer = { userId: string } | { minRole: "manager" };

/** What a confirmation asked in the browser shows, and its state. Values are bounded (confirmations.ts). */
export interface BrowserAsk {
  tool: string;
  title: string;
  /** the effect, as a sentence (the tool's own question) */
  question: string;
  /** the call's arguments as text, long values shortened, big ones left out */
  arguments: { name: string; value: string }[];
  /** the credential that made the call */
  via: { credential: "api_key" | "oauth" | "session_jwt"; keyId?: string; userId?: string; clientId?: string };
  confirmer: Confirmer;
  /** set once a person confirmed it in the browser: the call's retry may then spend it */
  confirmedBy?: string;
  confirmedAt?: number;
}

export type RedeemResult = "ok" | "unknown" | "expired" | "mismatch" | "unconfirmed";

/** A retry meeting its browser confirmation: confirmed (spent now), or still waiting for a person (the open ask). */
export type BrowserTake = { status: "confirmed" } | { status: "asked"; nonce: string; expiresAt: number };

/** What a person decided on the confirm page, or why there was nothing to decide. */
export type BrowserDecision = "confirmed" | "declined" | "already_confirmed" | "unknown" | "expired";

/** What a call waiting for a browser decision learns; "ended": its session was closed (DELETE) first. */
export type BrowserWait = "confirmed" | "declined" | "timeout" | "ended";

/** The client's answer to an elicitation/create: the user's action, or the JSON-RPC error it sent instead. */
export type ElicitationAnswer =
  | { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> }
  | { action: "error"; message: string };

/** What the waiting tool call learns: the answer, no answer in time, or the session ended first. */
export type ElicitationOutcome = ElicitationAnswer | { action: "timeout" } | { action: "ended" };

/** An elicitation/create the server sent on a tool call's stream: who may answer it, until when. */
export interface PendingElicitation {
  sessionId: string;
  /** the caller the session acts as (src/modules/mcp/elicitation.ts callerKey) */
  caller: string;
  expiresAt: number;
  /** an answer that arrived before the tool call started waiting */
  answer?: ElicitationAnswer;
}

interface Window {
  start: number;
  count: number;
}

/**
 * One instance per tenant: that tenant's MCP sessions, its request counter (a fixed window) and the
 * confirmations its callers were asked for (single-use, expiring).
 * Every /mcp request after initialize goes through `use`, which checks the session and its principal,
 * counts the request and refreshes the idle timer in one call. Sessions idle past the TTL are gone, so
 * the client re-initializes (404). A request of another principal finds no session and changes nothing.
 */
export class McpSessions extends DurableObject {
  /**
   * Tool calls waiting for the user's answer to an elicitation, by elicitation id. In memory: the
   * answer's POST and the waiting call meet in this one object whatever isolates served them; the
   * object stays up while a call waits on it.
   */
  private waiting = new Map<string, (outcome: ElicitationOutcome) => void>();

  /**
   * Tool calls waiting for a person's decision on the console's confirm page, by confirmation nonce, each
   * with the session it waits on (closing that session ends the wait).
   */
  private deciding = new Map<string, Set<{ sessionId: string; wake: (outcome: BrowserWait) => void }>>();

  /**
   * The synchronous key-value API of the object's SQLite storage (the same entries as the async one).
   * Every read-check-write below runs without an await, so no other request's call can run between
   * the read and the write: a session closed by one request cannot be written back by another one's
   * `use` that read it just before (an async get/put pair let that happen in workerd).
   */
  private get kv(): SyncKvStorage {
    return this.ctx.storage.kv;
  }

  async open(
    session: Omit<McpSessionState, "createdAt" | "lastSeenAt">,
    limits: SessionLimits,
    now = Date.now(),
  ): Promise<OpenResult> {
    const rate = this.count(limits, now);
    if (!rate.allowed) return { status: "rate_limited", rate: rate.state };
    const live = this.live(limits.idleTtlMs, now);
    if (live.length >= limits.maxSessions) {
      const soonest = Math.min(...live.map((s) => s.lastSeenAt + limits.idleTtlMs));
      return {
        status: "too_many_sessions",
        rate: rate.state,
        retryAfter: Math.max(1, Math.ceil((soonest - now) / 1000)),
      };
    }
    this.kv.put(`s:${session.id}`, { ...session, createdAt: now, lastSeenAt: now });
    return { status: "opened", rate: rate.state };
  }

  /**
   * A request on the session by the principal `principals` (its keyed hashes under the current and a
   * previous secret): unknown when there is no such live session or it is another principal's, which
   * is then left as it was (not counted, not refreshed, not closed).
   */
  async use(sessionId: string, principals: string[], limits: SessionLimits, now = Date.now()): Promise<UseResult> {
    const session = this.find(sessionId, principals, limits.idleTtlMs, now);
    if (!session) return { status: "unknown" };
    const rate = this.count(limits, now);
    if (!rate.allowed) return { status: "rate_limited", session, rate: rate.state };
    session.lastSeenAt = now;
    this.kv.put(`s:${sessionId}`, session);
    return { status: "ok", session, rate: rate.state };
  }

  /** Counts a request that has no session yet (e.g. a refused initialize). */
  async hit(limits: SessionLimits, now = Date.now()): Promise<{ allowed: boolean; state: RateState }> {
    return this.count(limits, now);
  }

  /**
   * Records a confirmation the server is asking for (src/modules/mcp/confirmations.ts). Expired ones
   * are dropped here, so the tenant's storage holds only live asks.
   */
  async issueConfirmation(nonce: string, pending: PendingConfirmation, now = Date.now()): Promise<void> {
    this.dropWhere<PendingConfirmation>("c:", (p) => p.expiresAt < now);
    this.kv.put(`c:${nonce}`, pending);
  }

  /**
   * Spends a confirmation: whatever the outcome the nonce is deleted (single use, and a wrong
   * presentation burns it), then it counts only if unexpired and bound to the same call.
   */
  async redeemConfirmation(nonce: string, digest: string, now = Date.now()): Promise<RedeemResult> {
    const pending = this.kv.get<PendingConfirmation>(`c:${nonce}`);
    if (!pending) return "unknown";
    this.kv.delete(`c:${nonce}`);
    if (pending.expiresAt < now) return "expired";
    if (pending.digest !== digest) return "mismatch";
    // asked in the browser: it counts only once a person confirmed it there
    return pending.browser && !pending.browser.confirmedAt ? "unconfirmed" : "ok";
  }

  /**
   * A call that needs a confirmation in the browser, in one step: a confirmed ask for this very call
   * (`digest`) is spent and the call may run; else the open ask for it is answered again (a model that
   * calls before the person decided gets the same link); else `ask` is recorded under `nonce`.
   */
  async askInBrowser(digest: string, nonce: string, ask: PendingConfirmation, now = Date.now()): Promise<BrowserTake> {
    this.dropWhere<PendingConfirmation>("c:", (p) => p.expiresAt < now);
    const same = [...this.kv.list<PendingConfirmation>({ prefix: "c:" })].filter(
      ([, p]) => p.browser && p.digest === digest,
    );
    const confirmed = same.find(([, p]) => p.browser!.confirmedAt);
    if (confirmed) {
      this.kv.delete(confirmed[0]);
      return { status: "confirmed" };
    }
    const open = same[0];
    if (open) return { status: "asked", nonce: open[0].slice(2), expiresAt: open[1].expiresAt };
    this.kv.put(`c:${nonce}`, ask);
    return { status: "asked", nonce, expiresAt: ask.expiresAt };
  }

  /** The ask the confirm page shows (never its digest): null when unknown or spent; expired ones say so. */
  async browserAsk(
    nonce: string,
    now = Date.now(),
  ): Promise<{ ask: BrowserAsk; expiresAt: number; expired: boolean } | null> {
    const pending = this.kv.get<PendingConfirmation>(`c:${nonce}`);
    if (!pending?.browser) return null;
    return { ask: pending.browser, expiresAt: pending.expiresAt, expired: pending.expiresAt < now };
  }

  /**
   * A person's decision on the confirm page (who may decide is checked before, confirmations.ts): confirm
   * marks the ask so the call's retry can spend it once; decline deletes it. A call waiting for the
   * decision (URL-mode elicitation) learns it at once.
   */
  async decideInBrowser(
    nonce: string,
    decision: "confirm" | "decline",
    by: string,
    now = Date.now(),
  ): Promise<BrowserDecision> {
    const pending = this.kv.get<PendingConfirmation>(`c:${nonce}`);
    if (!pending?.browser) return "unknown";
    if (pending.expiresAt < now) {
      this.kv.delete(`c:${nonce}`);
      return "expired";
    }
    if (pending.browser.confirmedAt) return "already_confirmed";
    if (decision === "decline") this.kv.delete(`c:${nonce}`);
    else this.kv.put(`c:${nonce}`, { ...pending, browser: { ...pending.browser, confirmedBy: by, confirmedAt: now } });
    const result = decision === "confirm" ? "confirmed" : "declined";
    for (const waiter of this.deciding.get(nonce) ?? []) waiter.wake(result);
    return result;
  }

  /**
   * Waits (at most `timeoutMs`) for a person's decision on the confirm page about ask `nonce`, for a call
   * of session `sessionId`: if that session is closed first (`close`), the wait ends at once with "ended".
   */
  async awaitBrowserDecision(nonce: string, sessionId: string, timeoutMs: number): Promise<BrowserWait> {
    const pending = this.kv.get<PendingConfirmation>(`c:${nonce}`);
    if (!pending?.browser) return "declined";
    if (pending.browser.confirmedAt) return "confirmed";
    if (!this.kv.get(`s:${sessionId}`)) return "ended";
    const waiters = this.deciding.get(nonce) ?? new Set();
    this.deciding.set(nonce, waiters);
    return new Promise((resolve) => {
      const waiter = {
        sessionId,
        wake: (outcome: BrowserWait) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (!waiters.size) this.deciding.delete(nonce);
          resolve(outcome);
        },
      };
      const timer = setTimeout(() => waiter.wake("timeout"), timeoutMs);
      waiters.add(waiter);
    });
  }

  /** Records an elicitation/create about to be sent on a tool call's stream (src/modules/mcp/elicitation.ts). */
  async openElicitation(id: string, pending: PendingElicitation, now = Date.now()): Promise<void> {
    this.dropWhere<PendingElicitation>("e:", (p) => p.expiresAt < now);
    this.kv.put(`e:${id}`, pending);
  }

  /**
   * Waits for the answer to elicitation `id`, at most `timeoutMs`; the elicitation is gone afterwards
   * whatever the outcome, so a late or repeated answer finds nothing.
   */
  async awaitElicitation(id: string, timeoutMs: number): Promise<ElicitationOutcome> {
    const pending = this.kv.get<PendingElicitation>(`e:${id}`);
    if (!pending) return { action: "ended" };
    if (pending.answer) {
      this.kv.delete(`e:${id}`);
      return pending.answer;
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        this.kv.delete(`e:${id}`);
        resolve({ action: "timeout" });
      }, timeoutMs);
      this.waiting.set(id, (outcome) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(outcome);
      });
    });
  }

  /**
   * The client's answer to elicitation `id`, taken once and only from the session and caller it was
   * asked of, before it expires. A refused answer changes nothing (the asking session can still answer).
   */
  async answerElicitation(
    id: string,
    sessionId: string,
    caller: string,
    answer: ElicitationAnswer,
    now = Date.now(),
  ): Promise<"accepted" | "refused"> {
    const pending = this.kv.get<PendingElicitation>(`e:${id}`);
    if (!pending || pending.answer || pending.expiresAt < now) return "refused";
    if (pending.sessionId !== sessionId || pending.caller !== caller) return "refused";
    const waiter = this.waiting.get(id);
    if (waiter) {
      this.kv.delete(`e:${id}`);
      waiter(answer);
    } else {
      this.kv.put(`e:${id}`, { ...pending, answer });
    }
    return "accepted";
  }

  /**
   * Ends a session, only at the request of its own principal (else false, nothing changes); a tool call
   * of it still waiting for the user learns so at once (nothing is written).
   */
  async close(sessionId: string, principals: string[], idleTtlMs: number, now = Date.now()): Promise<boolean> {
    if (!this.find(sessionId, principals, idleTtlMs, now)) return false;
    const closed = this.kv.delete(`s:${sessionId}`);
    const ours = this.dropWhere<PendingElicitation>("e:", (p) => p.sessionId === sessionId);
    for (const key of ours) this.waiting.get(key.slice(2))?.({ action: "ended" });
    // calls of this session waiting for a decision on the confirm page (URL-mode elicitation) end too; the
    // ask itself stays (a person may still confirm it, and the same call made again runs once)
    for (const waiters of [...this.deciding.values()])
      for (const waiter of [...waiters]) if (waiter.sessionId === sessionId) waiter.wake("ended");
    return closed;
  }

  async liveCount(idleTtlMs: number, now = Date.now()): Promise<number> {
    return this.live(idleTtlMs, now).length;
  }

  /** The live session `sessionId` if it is the principal's; an idle one is deleted on the way. */
  private find(sessionId: string, principals: string[], idleTtlMs: number, now: number): McpSessionState | null {
    const session = this.kv.get<McpSessionState>(`s:${sessionId}`);
    if (!session) return null;
    if (now - session.lastSeenAt > idleTtlMs) {
      this.kv.delete(`s:${sessionId}`);
      return null;
    }
    return principals.some((p) => safeEqual(p, session.principal)) ? session : null;
  }

  private count(limits: SessionLimits, now: number): { allowed: boolean; state: RateState } {
    const windowMs = limits.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const stored = this.kv.get<Window>("rate");
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
    this.kv.put("rate", w);
    return { allowed: true, state: state(w.count) };
  }

  private live(idleTtlMs: number, now: number): McpSessionState[] {
    this.dropWhere<McpSessionState>("s:", (s) => now - s.lastSeenAt > idleTtlMs);
    return [...this.kv.list<McpSessionState>({ prefix: "s:" })].map(([, s]) => s);
  }

  /** Deletes the entries under `prefix` that `gone` picks; returns their keys. */
  private dropWhere<T>(prefix: string, gone: (value: T) => boolean): string[] {
    const keys = [...this.kv.list<T>({ prefix })].filter(([, v]) => gone(v)).map(([k]) => k);
    for (const key of keys) this.kv.delete(key);
    return keys;
  }
}
