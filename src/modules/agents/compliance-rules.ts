import { z } from "@hono/zod-openapi";
import type { MessageChannel } from "../../db/schema";
import type { ComplianceConfig } from "../compliance/schemas";
import { COMPLIANCE_DEFAULTS } from "../compliance/schemas";
import { SMS_OPT_OUT_TEXT } from "../templates/render";
import { smsSegments } from "../templates/sms-segments";
import { extractTokens, TOKEN_NAME } from "../templates/tokens";
import { type Evidence, Evidences } from "./types";

export const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const FindingSchema = z
  .object({
    rule: z.string().describe("the rule's code, e.g. review_gating (docs/ai.md lists them)"),
    severity: z.enum(SEVERITIES),
    message: z.string(),
    fix: z.string(),
    evidence: Evidences,
  })
  .openapi("ComplianceFinding");
export type Finding = z.infer<typeof FindingSchema>;

export interface Content {
  channel: MessageChannel;
  subject: string | null;
  bodyHtml: string | null;
  bodyText: string | null;
}

/** Where the content came from, for evidence: the tool and the record id (null for a draft in the input). */
export interface Origin {
  source: string;
  id: string | null;
}

const ev = (o: Origin, label: string, value: Evidence["value"]): Evidence => ({
  source: o.source,
  id: o.id,
  label,
  value,
});
const plain = (c: Content) => [c.subject, c.bodyText, c.bodyHtml?.replace(/<[^>]+>/g, " ")].filter(Boolean).join("\n");
const sentences = (text: string) =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** Asking only satisfied customers, or steering unhappy ones away from the review site. */
const GATING: RegExp[] = [
  /\bif (?:you|you're|you are|you were)\b[^.!?\n]{0,60}\b(?:happy|satisfied|pleased|enjoyed|loved|had an? (?:great|good|positive|wonderful|amazing|5[- ]star|five[- ]star))/i,
  /\bonly\b[^.!?\n]{0,40}\b(?:positive|good|happy|great|5[- ]star|five[- ]star)\b[^.!?\n]{0,30}\breviews?\b/i,
  /\b(?:5|five)[- ]star (?:review|rating)s?\b/i,
  /\b(?:not|un|dis)\s?(?:happy|satisfied)\b[^.!?\n]{0,80}\b(?:contact|call|email|tell|let|reach)\b[^.!?\n]{0,40}\b(?:first|instead|before|rather)\b/i,
];
const INCENTIVE =
  /\b(?:discount|coupon|voucher|gift ?card|\d+\s?% off|free\b|reward|prize|raffle|sweepstakes?|giveaway|cash|store credit|loyalty points)/i;
const REVIEW_WORD = /\b(?:review|rating|stars?|feedback)\b/i;
const SENTIMENT_CONDITION = /\b(?:positive|good|great|5[- ]star|five[- ]star|happy)\b/i;
const SMS_STOP = /\breply\s+stop\b|\btext\s+stop\b|\bstop to (?:opt[- ]out|unsubscribe|end|cancel)\b/i;

/** The message-level rules: tokens, opt-out presence, review gating, incentives, SMS segment cost. */
export function lintContent(c: Content, origin: Origin, knownTokens: ReadonlySet<string>): Finding[] {
  const findings: Finding[] = [];
  const tokens = extractTokens(c.subject, c.bodyHtml, c.bodyText);
  const unknown = tokens.filter((t) => !TOKEN_NAME.test(t) || !knownTokens.has(t));
  if (unknown.length) {
    findings.push({
      rule: "unknown_token",
      severity: "high",
      message: `Unknown tokens ${unknown.map((t) => `{{${t}}}`).join(", ")}: the template cannot be approved and would render them empty.`,
      fix: `Use built-in tokens or the tenant's location variables: ${[...knownTokens].map((t) => `{{${t}}}`).join(", ")}.`,
      evidence: unknown.map((t) => ev(origin, "unknown token", `{{${t}}}`)),
    });
  }
  const body = [c.bodyText, c.bodyHtml].filter(Boolean).join("\n");
  if (!body.trim()) {
    findings.push({
      rule: "body_missing",
      severity: "high",
      message: "The message has no body.",
      fix: "Write the message body.",
      evidence: [ev(origin, "body length", 0)],
    });
  }
  if (c.channel === "email") {
    if (!c.subject?.trim())
      findings.push({
        rule: "subject_missing",
        severity: "medium",
        message: "An email needs a subject to be approved.",
        fix: 'Add a short subject, e.g. "How did we do, {{firstName}}?".',
        evidence: [ev(origin, "subject", c.subject)],
      });
    const withLink = [c.bodyHtml, c.bodyText].filter(
      (b) => b !== null && extractTokens(b).includes("unsubscribeLink"),
    ).length;
    const parts = [c.bodyHtml, c.bodyText].filter((b) => b !== null).length;
    if (withLink < parts) {
      findings.push({
        rule: "unsubscribe_missing",
        severity: "high",
        message:
          "The email body has no {{unsubscribeLink}}. CAN-SPAM (15 U.S.C. 7704(a)(5)) and GDPR/PECR require a clear opt-out in every marketing email; sending appends a footer link, but the template itself does not show one.",
        fix: 'Add a visible line such as <a href="{{unsubscribeLink}}">Unsubscribe</a> to bodyHtml and "Unsubscribe: {{unsubscribeLink}}" to bodyText.',
        evidence: [ev(origin, "body parts with {{unsubscribeLink}}", `${withLink} of ${parts}`)],
      });
    }
  }
  if (c.channel === "sms") {
    const text = c.bodyText ?? "";
    const sent = SMS_STOP.test(text) ? text : text ? `${text}\n${SMS_OPT_OUT_TEXT}` : SMS_OPT_OUT_TEXT;
    const seg = smsSegments(sent);
    if (!SMS_STOP.test(text)) {
      findings.push({
        rule: "sms_opt_out_missing",
        severity: "medium",
        message: `No opt-out instruction. The CTIA guidelines and TCPA practice require one; sending appends "${SMS_OPT_OUT_TEXT}", which counts toward the message length.`,
        fix: `End the message with "${SMS_OPT_OUT_TEXT}".`,
        evidence: [ev(origin, "segments with the appended opt-out", seg.segments)],
      });
    }
    if (seg.segments > 1 || seg.encoding === "UCS-2") {
      const nonGsm =
        seg.encoding === "UCS-2"
          ? [...new Set([...sent].filter((ch) => smsSegments(ch).encoding === "UCS-2"))].slice(0, 10).join(" ")
          : "";
      findings.push({
        rule: "sms_segment_cost",
        severity: seg.segments > 2 ? "medium" : "low",
        message: `The SMS as sent is ${seg.units} ${seg.encoding === "GSM-7" ? "septets" : "UCS-2 units"} in ${seg.encoding}: ${seg.segments} billed segment${seg.segments === 1 ? "" : "s"} per recipient${nonGsm ? ` (non-GSM characters: ${nonGsm})` : ""}.`,
        fix:
          seg.encoding === "UCS-2"
            ? "Replace emoji and curly quotes with plain characters to stay in GSM-7 (160 characters per segment)."
            : "Shorten the text to fit 160 GSM-7 characters, including the opt-out line.",
        evidence: [
          ev(origin, "segments", seg.segments),
          ev(origin, "encoding", seg.encoding),
          ev(origin, "units", seg.units),
        ],
      });
    }
  }
  const all = plain(c);
  const gated = sentences(all).filter((s) => GATING.some((re) => re.test(s)));
  if (gated.length) {
    findings.push({
      rule: "review_gating",
      severity: "high",
      message:
        "The wording asks only satisfied customers for a review, or steers unhappy ones away from it (review gating). The FTC's rule on consumer reviews (16 CFR 465.7) bars suppressing negative reviews, and Google's and Yelp's policies forbid selective solicitation.",
      fix: 'Ask every customer the same way for an honest review, e.g. "Tell us how we did: {{reviewLink}}", without conditions on their experience or the rating.',
      evidence: gated.slice(0, 5).map((s) => ev(origin, "gating wording", s)),
    });
  }
  const incentives = sentences(all).filter((s) => INCENTIVE.test(s) && REVIEW_WORD.test(s));
  if (incentives.length) {
    const conditional = incentives.some((s) => SENTIMENT_CONDITION.test(s));
    findings.push({
      rule: "review_incentive",
      severity: conditional ? "critical" : "high",
      message: conditional
        ? "An incentive is offered for a positive review: 16 CFR 465.4 prohibits incentives conditioned on the review's sentiment (civil penalties per violation)."
        : "An incentive is offered for a review. 16 CFR 465.4 forbids tying it to sentiment and requires disclosure; Google and Yelp forbid review incentives outright.",
      fix: "Remove the incentive from the review request; thank customers without conditions.",
      evidence: incentives.slice(0, 5).map((s) => ev(origin, "incentive wording", s)),
    });
  }
  return findings;
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Settings rules: quiet hours, frequency caps, consent requirements for the channels used. */
export function lintSettings(config: ComplianceConfig, channels: MessageChannel[], origin: Origin): Finding[] {
  const findings: Finding[] = [];
  const cfg: Origin = { source: "compliance.config", id: null };
  const d = COMPLIANCE_DEFAULTS;
  // quiet time runs from start to end across midnight; a later start or earlier end allows sends at night
  const startLate = (minutes(config.quietHoursStart) - minutes(d.quietHoursStart) + 1440) % 1440;
  const endEarly = (minutes(d.quietHoursEnd) - minutes(config.quietHoursEnd) + 1440) % 1440;
  if ((startLate > 0 && startLate < 720) || (endEarly > 0 && endEarly < 720)) {
    findings.push({
      rule: "quiet_hours_narrow",
      severity: channels.some((c) => c !== "email") ? "medium" : "low",
      message: `Quiet hours ${config.quietHoursStart}-${config.quietHoursEnd} allow messages outside 08:00-21:00 local time; the TCPA limits calls and texts to 08:00-21:00 and some states (e.g. Florida) to 08:00-20:00.`,
      fix: "Set quiet hours to at least 21:00-08:00 (20:00-08:00 for Florida recipients).",
      evidence: [ev(cfg, "quietHoursStart", config.quietHoursStart), ev(cfg, "quietHoursEnd", config.quietHoursEnd)],
    });
  }
  if (config.frequencyCapDaily > d.frequencyCapDaily || config.frequencyCapWeekly > d.frequencyCapWeekly) {
    findings.push({
      rule: "frequency_cap_high",
      severity: "low",
      message: `Frequency caps of ${config.frequencyCapDaily} a day and ${config.frequencyCapWeekly} a week are above the defaults (${d.frequencyCapDaily} and ${d.frequencyCapWeekly}); repeated review requests drive complaints and opt-outs.`,
      fix: `Keep at most ${d.frequencyCapDaily} messages a day and ${d.frequencyCapWeekly} a week per recipient.`,
      evidence: [
        ev(cfg, "frequencyCapDaily", config.frequencyCapDaily),
        ev(cfg, "frequencyCapWeekly", config.frequencyCapWeekly),
      ],
    });
  }
  if (channels.some((c) => c === "sms" || c === "whatsapp") && !config.requireSmsOptIn) {
    findings.push({
      rule: "sms_consent_not_required",
      severity: "high",
      message:
        "SMS/WhatsApp messages go out without a recorded opt-in (requireSmsOptIn is off). The TCPA requires prior express consent for automated texts, and WhatsApp requires an opt-in.",
      fix: "Turn on requireSmsOptIn in the compliance settings and record consent (POST /v1/contacts/{id}/consent).",
      evidence: [ev(cfg, "requireSmsOptIn", "false"), ev(origin, "channels", channels.join(", "))],
    });
  }
  if (channels.includes("email") && !config.requireEmailConsent) {
    findings.push({
      rule: "email_consent_not_required",
      severity: "medium",
      message:
        "Emails go out without recorded consent (requireEmailConsent is off). CAN-SPAM allows it, but GDPR/PECR and CASL require consent for recipients in the EU, UK and Canada.",
      fix: "Turn on requireEmailConsent for tenants with EU, UK or Canadian customers.",
      evidence: [ev(cfg, "requireEmailConsent", "false")],
    });
  }
  return findings;
}

/** Sequence rules: steps that the caps will block. */
export function lintSequence(
  steps: { stepIndex: number; channel: MessageChannel; delayDays: number }[],
  config: ComplianceConfig,
  origin: Origin,
): Finding[] {
  const findings: Finding[] = [];
  const firstDay = steps.filter((s) => s.delayDays === 0).length;
  if (firstDay > config.frequencyCapDaily) {
    findings.push({
      rule: "sequence_exceeds_daily_cap",
      severity: "medium",
      message: `${firstDay} steps go out on the same day but the daily cap is ${config.frequencyCapDaily}: the extra steps will be blocked (FREQUENCY_CAP_DAILY).`,
      fix: "Space the steps at least a day apart.",
      evidence: [
        ev(origin, "steps on day 0", firstDay),
        ev({ source: "compliance.config", id: null }, "frequencyCapDaily", config.frequencyCapDaily),
      ],
    });
  }
  const firstWeek = steps.filter((s) => s.delayDays < 7).length;
  if (firstWeek > config.frequencyCapWeekly) {
    findings.push({
      rule: "sequence_exceeds_weekly_cap",
      severity: "medium",
      message: `${firstWeek} steps fall within 7 days but the weekly cap is ${config.frequencyCapWeekly}: later steps will be blocked (FREQUENCY_CAP_WEEKLY).`,
      fix: "Stretch the sequence over more than a week or drop a step.",
      evidence: [
        ev(origin, "steps within 7 days", firstWeek),
        ev({ source: "compliance.config", id: null }, "frequencyCapWeekly", config.frequencyCapWeekly),
      ],
    });
  }
  if (steps.length > 3) {
    findings.push({
      rule: "sequence_too_long",
      severity: "low",
      message: `${steps.length} messages asking for one review is more than most recipients accept; complaints and unsubscribes rise after the second reminder.`,
      fix: "Keep the first request and at most two reminders.",
      evidence: [ev(origin, "steps", steps.length)],
    });
  }
  return findings;
}

const RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };
export const bySeverity = (a: Finding, b: Finding) =>
  RANK[b.severity] - RANK[a.severity] || a.rule.localeCompare(b.rule);
export const blocking = (f: Finding) => RANK[f.severity] >= RANK.high;
