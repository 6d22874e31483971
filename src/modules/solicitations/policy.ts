import type { BlockedReason, ConsentChannel, ConsentStatus, MessageChannel } from "../../db/schema";
import { isTimeZone, wallClock } from "../../lib/zoned-time";

/**
 * The sending policy: one pure function of (tenant, contact, consent, compliance settings, the
 * recipient's zone, recent sends, now). Every send path (single, campaign, bulk, sequence step,
 * automation) reaches it through createSolicitations; the queue consumer re-checks the rules marked
 * `atSend` just before calling the provider.
 */

export interface PolicyCompliance {
  quietHoursStart: string;
  quietHoursEnd: string;
  frequencyCapDaily: number;
  frequencyCapWeekly: number;
  requireEmailConsent: boolean;
  requireSmsOptIn: boolean;
}

export interface PolicyInput {
  tenant: { isActive: boolean };
  contact: { isSuppressed: boolean; email: string | null; phone: string | null };
  /** the latest consent record per channel */
  consent: Partial<Record<ConsentChannel, { status: ConsentStatus }>>;
  compliance: PolicyCompliance;
  channel: MessageChannel;
  /** IANA zone: the contact's, else the location's, else UTC (see recipientTimeZone) */
  recipientTimeZone: string;
  /** createdAt of the contact's non-blocked solicitations (any channel), at least the last 7 days */
  recentSends: readonly (string | Date)[];
  now: Date;
}

export type PolicyDecision = { allowed: true } | { allowed: false; blockedReason: BlockedReason };

const DAY_MS = 24 * 3600 * 1000;

/** Does this channel need a granted consent record under these settings? */
export function consentRequired(
  channel: MessageChannel,
  c: Pick<PolicyCompliance, "requireEmailConsent" | "requireSmsOptIn">,
): boolean {
  if (channel === "email") return c.requireEmailConsent;
  if (channel === "sms") return c.requireSmsOptIn;
  // WhatsApp: Meta's Business Messaging Policy requires an opt-in for business-initiated messages,
  // whatever the tenant's settings
  return true;
}

function hasConsent(i: PolicyInput): boolean {
  const status = i.consent[i.channel]?.status;
  // an explicit opt-out always wins, even where consent is not required
  if (status === "revoked") return false;
  return consentRequired(i.channel, i.compliance) ? status === "granted" : true;
}

const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(":").map(Number);
  return h! * 60 + m!;
};

/** Wall-clock minutes since midnight at `now` in `timeZone` (DST handled by the runtime's tz data). */
export function localMinutes(now: Date, timeZone: string): number {
  const w = wallClock(now, timeZone);
  return w.hour * 60 + w.minute;
}

/**
 * Quiet hours are [start, end) in local wall-clock minutes: exactly `start` (21:00) is blocked,
 * exactly `end` (08:00) is allowed. A window with start > end wraps midnight; start == end means no
 * quiet hours.
 */
export function inQuietHours(now: Date, timeZone: string, start: string, end: string): boolean {
  const m = localMinutes(now, timeZone);
  const s = minutesOf(start);
  const e = minutesOf(end);
  if (s === e) return false;
  return s < e ? m >= s && m < e : m >= s || m < e;
}

/** Sends in the window (now - span, now]: a send exactly 24 h (or 7 days) old no longer counts. */
export function sendsWithin(recent: readonly (string | Date)[], now: Date, spanMs: number): number {
  const from = now.getTime() - spanMs;
  const to = now.getTime();
  let n = 0;
  for (const r of recent) {
    const t = typeof r === "string" ? Date.parse(r) : r.getTime();
    if (t > from && t <= to) n++;
  }
  return n;
}

/** The zone quiet hours are judged in: the contact's, else the location's, else UTC (invalid ones skipped). */
export function recipientTimeZone(
  contactZone: string | null | undefined,
  locationZone: string | null | undefined,
): string {
  for (const z of [contactZone, locationZone]) if (z && isTimeZone(z)) return z;
  return "UTC";
}

interface Rule {
  reason: BlockedReason;
  blocks: (i: PolicyInput) => boolean;
  /** re-checked by the queue consumer right before the provider call */
  atSend: boolean;
}

/** The rules in the order decisions.md fixes; the first that blocks gives the blockedReason. */
export const POLICY_RULES: readonly Rule[] = [
  { reason: "TENANT_PAUSED", atSend: true, blocks: (i) => !i.tenant.isActive },
  { reason: "SUPPRESSED", atSend: true, blocks: (i) => i.contact.isSuppressed },
  {
    reason: "MISSING_ADDRESS",
    atSend: true,
    blocks: (i) => !(i.channel === "email" ? i.contact.email : i.contact.phone),
  },
  { reason: "NO_CONSENT", atSend: true, blocks: (i) => !hasConsent(i) },
  {
    reason: "QUIET_HOURS",
    atSend: false,
    blocks: (i) => inQuietHours(i.now, i.recipientTimeZone, i.compliance.quietHoursStart, i.compliance.quietHoursEnd),
  },
  {
    reason: "FREQUENCY_CAP_DAILY",
    atSend: false,
    blocks: (i) => sendsWithin(i.recentSends, i.now, DAY_MS) >= i.compliance.frequencyCapDaily,
  },
  {
    reason: "FREQUENCY_CAP_WEEKLY",
    atSend: false,
    blocks: (i) => sendsWithin(i.recentSends, i.now, 7 * DAY_MS) >= i.compliance.frequencyCapWeekly,
  },
];

function run(rules: readonly Rule[], input: PolicyInput): PolicyDecision {
  for (const rule of rules) if (rule.blocks(input)) return { allowed: false, blockedReason: rule.reason };
  return { allowed: true };
}

/** The policy at creation: every rule, in order. */
export const evaluate = (input: PolicyInput): PolicyDecision => run(POLICY_RULES, input);

/**
 * The policy at send time: what can change between creation and the provider call (a pause, an
 * unsubscribe, a STOP, an erasure). Quiet hours and caps were judged at creation.
 */
export const evaluateAtSend = (input: Omit<PolicyInput, "recentSends" | "recipientTimeZone" | "now">): PolicyDecision =>
  run(
    POLICY_RULES.filter((r) => r.atSend),
    { ...input, recentSends: [], recipientTimeZone: "UTC", now: new Date(0) },
  );
