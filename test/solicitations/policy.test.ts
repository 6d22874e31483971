import { describe, expect, it } from "vitest";
import { COMPLIANCE_DEFAULTS } from "../../src/modules/compliance/schemas";
import {
  evaluate,
  evaluateAtSend,
  inQuietHours,
  localMinutes,
  type PolicyInput,
  recipientTimeZone,
  sendsWithin,
} from "../../src/modules/solicitations/policy";

const NOON_UTC = new Date("2026-06-15T12:00:00.000Z");

const base = (o: Partial<PolicyInput> = {}): PolicyInput => ({
  tenant: { isActive: true },
  contact: { isSuppressed: false, email: "ann@example.com", phone: "+14155550100" },
  consent: { email: { status: "granted" }, sms: { status: "granted" }, whatsapp: { status: "granted" } },
  compliance: { ...COMPLIANCE_DEFAULTS },
  channel: "email",
  recipientTimeZone: "UTC",
  recentSends: [],
  now: NOON_UTC,
  ...o,
});

const reason = (i: PolicyInput) => {
  const d = evaluate(i);
  return d.allowed ? "ALLOWED" : d.blockedReason;
};

const hoursAgo = (h: number, now = NOON_UTC) => new Date(now.getTime() - h * 3600_000).toISOString();

describe("policy order", () => {
  it("allows a send that passes every rule", () => {
    expect(evaluate(base())).toEqual({ allowed: true });
  });

  it("gives each blockedReason when only its rule fails", () => {
    expect(reason(base({ tenant: { isActive: false } }))).toBe("TENANT_PAUSED");
    expect(reason(base({ contact: { isSuppressed: true, email: "a@x.io", phone: null } }))).toBe("SUPPRESSED");
    expect(reason(base({ contact: { isSuppressed: false, email: null, phone: "+14155550100" } }))).toBe(
      "MISSING_ADDRESS",
    );
    expect(reason(base({ consent: {} }))).toBe("NO_CONSENT");
    expect(reason(base({ now: new Date("2026-06-15T22:00:00Z") }))).toBe("QUIET_HOURS");
    expect(reason(base({ recentSends: [hoursAgo(1), hoursAgo(2), hoursAgo(3)] }))).toBe("FREQUENCY_CAP_DAILY");
    expect(reason(base({ recentSends: [hoursAgo(30), hoursAgo(50), hoursAgo(70), hoursAgo(90), hoursAgo(110)] }))).toBe(
      "FREQUENCY_CAP_WEEKLY",
    );
  });

  it("reports the first failing rule in decisions.md's order", () => {
    const everythingWrong = base({
      tenant: { isActive: false },
      contact: { isSuppressed: true, email: null, phone: null },
      consent: {},
      now: new Date("2026-06-15T23:00:00Z"),
      recentSends: Array.from({ length: 6 }, (_, i) => hoursAgo(i + 0.5, new Date("2026-06-15T23:00:00Z"))),
    });
    const order: string[] = [];
    let input = everythingWrong;
    const fixes: ((i: PolicyInput) => PolicyInput)[] = [
      (i) => ({ ...i, tenant: { isActive: true } }),
      (i) => ({ ...i, contact: { ...i.contact, isSuppressed: false } }),
      (i) => ({ ...i, contact: { ...i.contact, email: "a@x.io" } }),
      (i) => ({ ...i, consent: { email: { status: "granted" } } }),
      (i) => ({
        ...i,
        now: new Date("2026-06-15T19:00:00Z"),
        recentSends: i.recentSends.map((_, k) => hoursAgo(k + 0.5, new Date("2026-06-15T19:00:00Z"))),
      }),
      (i) => ({
        ...i,
        recentSends: [
          hoursAgo(30, i.now),
          hoursAgo(40, i.now),
          hoursAgo(50, i.now),
          hoursAgo(60, i.now),
          hoursAgo(70, i.now),
        ],
      }),
      (i) => ({ ...i, recentSends: [] }),
    ];
    for (const fix of fixes) {
      order.push(reason(input));
      input = fix(input);
    }
    order.push(reason(input));
    expect(order).toEqual([
      "TENANT_PAUSED",
      "SUPPRESSED",
      "MISSING_ADDRESS",
      "NO_CONSENT",
      "QUIET_HOURS",
      "FREQUENCY_CAP_DAILY",
      "FREQUENCY_CAP_WEEKLY",
      "ALLOWED",
    ]);
  });
});

describe("addresses per channel", () => {
  it("email needs an email; sms and whatsapp need a phone", () => {
    const emailOnly = { isSuppressed: false, email: "a@x.io", phone: null };
    const phoneOnly = { isSuppressed: false, email: null, phone: "+14155550100" };
    expect(reason(base({ channel: "email", contact: emailOnly }))).toBe("ALLOWED");
    expect(reason(base({ channel: "sms", contact: emailOnly }))).toBe("MISSING_ADDRESS");
    expect(reason(base({ channel: "whatsapp", contact: emailOnly }))).toBe("MISSING_ADDRESS");
    expect(reason(base({ channel: "email", contact: phoneOnly }))).toBe("MISSING_ADDRESS");
    expect(reason(base({ channel: "sms", contact: phoneOnly }))).toBe("ALLOWED");
    expect(reason(base({ channel: "whatsapp", contact: phoneOnly }))).toBe("ALLOWED");
  });
});

describe("consent", () => {
  const cfg = (requireEmailConsent: boolean, requireSmsOptIn: boolean) => ({
    ...COMPLIANCE_DEFAULTS,
    requireEmailConsent,
    requireSmsOptIn,
  });

  it("requires granted email consent only when requireEmailConsent is on", () => {
    expect(reason(base({ consent: {}, compliance: cfg(true, true) }))).toBe("NO_CONSENT");
    expect(reason(base({ consent: { email: { status: "pending" } }, compliance: cfg(true, true) }))).toBe("NO_CONSENT");
    expect(reason(base({ consent: { email: { status: "granted" } }, compliance: cfg(true, true) }))).toBe("ALLOWED");
    expect(reason(base({ consent: {}, compliance: cfg(false, true) }))).toBe("ALLOWED");
  });

  it("requires a granted SMS opt-in only when requireSmsOptIn is on", () => {
    expect(
      reason(base({ channel: "sms", consent: { email: { status: "granted" } }, compliance: cfg(true, true) })),
    ).toBe("NO_CONSENT");
    expect(reason(base({ channel: "sms", consent: {}, compliance: cfg(true, false) }))).toBe("ALLOWED");
    expect(reason(base({ channel: "sms", consent: { sms: { status: "granted" } }, compliance: cfg(true, true) }))).toBe(
      "ALLOWED",
    );
  });

  it("always requires a WhatsApp opt-in", () => {
    expect(
      reason(base({ channel: "whatsapp", consent: { sms: { status: "granted" } }, compliance: cfg(false, false) })),
    ).toBe("NO_CONSENT");
    expect(
      reason(
        base({ channel: "whatsapp", consent: { whatsapp: { status: "granted" } }, compliance: cfg(false, false) }),
      ),
    ).toBe("ALLOWED");
  });

  it("honours an explicit revoke even where consent is not required", () => {
    expect(reason(base({ consent: { email: { status: "revoked" } }, compliance: cfg(false, false) }))).toBe(
      "NO_CONSENT",
    );
    expect(
      reason(base({ channel: "sms", consent: { sms: { status: "revoked" } }, compliance: cfg(false, false) })),
    ).toBe("NO_CONSENT");
  });

  it("consent of one channel does not count for another", () => {
    expect(reason(base({ consent: { sms: { status: "granted" } } }))).toBe("NO_CONSENT");
  });
});

describe("quiet hours", () => {
  const at = (iso: string, tz: string) => inQuietHours(new Date(iso), tz, "21:00", "08:00");

  it("blocks exactly 21:00 and allows exactly 08:00 (UTC)", () => {
    expect(at("2026-06-15T20:59:59.999Z", "UTC")).toBe(false);
    expect(at("2026-06-15T21:00:00.000Z", "UTC")).toBe(true);
    expect(at("2026-06-15T23:59:59Z", "UTC")).toBe(true);
    expect(at("2026-06-16T00:00:00Z", "UTC")).toBe(true);
    expect(at("2026-06-16T07:59:59.999Z", "UTC")).toBe(true);
    expect(at("2026-06-16T08:00:00.000Z", "UTC")).toBe(false);
    expect(at("2026-06-16T12:00:00Z", "UTC")).toBe(false);
  });

  it("judges the recipient's wall clock in other zones", () => {
    // 2026-06-15 01:00Z = 21:00 EDT (UTC-4) the evening before
    expect(at("2026-06-15T01:00:00Z", "America/New_York")).toBe(true);
    expect(at("2026-06-15T00:59:00Z", "America/New_York")).toBe(false);
    // 12:00Z = 08:00 EDT
    expect(at("2026-06-15T12:00:00Z", "America/New_York")).toBe(false);
    expect(at("2026-06-15T11:59:00Z", "America/New_York")).toBe(true);
    // Tokyo (UTC+9, no DST): 12:00Z = 21:00 JST
    expect(at("2026-06-15T12:00:00Z", "Asia/Tokyo")).toBe(true);
    expect(at("2026-06-15T11:59:00Z", "Asia/Tokyo")).toBe(false);
    // Kolkata (UTC+5:30): 02:30Z = 08:00 IST, 15:30Z = 21:00 IST
    expect(at("2026-06-15T02:29:00Z", "Asia/Kolkata")).toBe(true);
    expect(at("2026-06-15T02:30:00Z", "Asia/Kolkata")).toBe(false);
    expect(at("2026-06-15T15:29:00Z", "Asia/Kolkata")).toBe(false);
    expect(at("2026-06-15T15:30:00Z", "Asia/Kolkata")).toBe(true);
    // the same instant is quiet in one zone and not in another
    expect(at("2026-06-15T22:00:00Z", "UTC")).toBe(true);
    expect(at("2026-06-15T22:00:00Z", "America/Los_Angeles")).toBe(false);
  });

  it("follows New York across the DST changes", () => {
    // 2026-03-08: clocks go 02:00 EST -> 03:00 EDT. 08:00 local is 13:00Z before, 12:00Z on and after.
    expect(at("2026-03-07T12:30:00Z", "America/New_York")).toBe(true); // 07:30 EST
    expect(at("2026-03-07T13:00:00Z", "America/New_York")).toBe(false); // 08:00 EST
    expect(at("2026-03-08T12:00:00Z", "America/New_York")).toBe(false); // 08:00 EDT
    expect(at("2026-03-08T11:59:00Z", "America/New_York")).toBe(true); // 07:59 EDT
    expect(localMinutes(new Date("2026-03-08T07:00:00Z"), "America/New_York")).toBe(3 * 60); // 02:00 EST became 03:00 EDT
    // evening: 21:00 EST = 02:00Z next day; 21:00 EDT = 01:00Z next day
    expect(at("2026-03-08T01:30:00Z", "America/New_York")).toBe(false); // 20:30 EST on the 7th
    expect(at("2026-03-09T01:30:00Z", "America/New_York")).toBe(true); // 21:30 EDT on the 8th
    // 2026-11-01: clocks go 02:00 EDT -> 01:00 EST.
    expect(at("2026-11-01T11:59:00Z", "America/New_York")).toBe(true); // 06:59 EST
    expect(at("2026-11-01T12:59:00Z", "America/New_York")).toBe(true); // 07:59 EST
    expect(at("2026-11-01T13:00:00Z", "America/New_York")).toBe(false); // 08:00 EST
    expect(at("2026-10-31T12:00:00Z", "America/New_York")).toBe(false); // 08:00 EDT the day before
  });

  it("follows London across the DST changes", () => {
    // 2026-03-29: 01:00 GMT -> 02:00 BST. 08:00 local = 07:00Z from then on.
    expect(at("2026-03-28T07:30:00Z", "Europe/London")).toBe(true); // 07:30 GMT
    expect(at("2026-03-29T07:00:00Z", "Europe/London")).toBe(false); // 08:00 BST
    expect(at("2026-03-29T06:59:00Z", "Europe/London")).toBe(true); // 07:59 BST
    expect(at("2026-03-29T20:00:00Z", "Europe/London")).toBe(true); // 21:00 BST
    expect(at("2026-03-28T20:30:00Z", "Europe/London")).toBe(false); // 20:30 GMT
    // 2026-10-25: 02:00 BST -> 01:00 GMT. 08:00 local = 08:00Z again.
    expect(at("2026-10-25T07:30:00Z", "Europe/London")).toBe(true); // 07:30 GMT
    expect(at("2026-10-25T08:00:00Z", "Europe/London")).toBe(false);
    expect(at("2026-10-24T07:30:00Z", "Europe/London")).toBe(false); // 08:30 BST
    expect(at("2026-10-25T21:00:00Z", "Europe/London")).toBe(true); // 21:00 GMT
    expect(at("2026-10-24T20:00:00Z", "Europe/London")).toBe(true); // 21:00 BST
    expect(at("2026-10-24T19:59:00Z", "Europe/London")).toBe(false); // 20:59 BST
  });

  it("supports windows that do not wrap midnight, and an empty window", () => {
    const d = (iso: string) => new Date(iso);
    expect(inQuietHours(d("2026-06-15T12:59:00Z"), "UTC", "13:00", "15:00")).toBe(false);
    expect(inQuietHours(d("2026-06-15T13:00:00Z"), "UTC", "13:00", "15:00")).toBe(true);
    expect(inQuietHours(d("2026-06-15T14:59:00Z"), "UTC", "13:00", "15:00")).toBe(true);
    expect(inQuietHours(d("2026-06-15T15:00:00Z"), "UTC", "13:00", "15:00")).toBe(false);
    expect(inQuietHours(d("2026-06-15T03:00:00Z"), "UTC", "00:00", "00:00")).toBe(false);
    expect(inQuietHours(d("2026-06-15T23:59:00Z"), "UTC", "00:00", "06:00")).toBe(false);
    expect(inQuietHours(d("2026-06-15T00:00:00Z"), "UTC", "00:00", "06:00")).toBe(true);
  });

  it("uses the configured hours through evaluate", () => {
    const compliance = { ...COMPLIANCE_DEFAULTS, quietHoursStart: "18:30", quietHoursEnd: "09:15" };
    expect(reason(base({ compliance, now: new Date("2026-06-15T18:29:00Z") }))).toBe("ALLOWED");
    expect(reason(base({ compliance, now: new Date("2026-06-15T18:30:00Z") }))).toBe("QUIET_HOURS");
    expect(reason(base({ compliance, now: new Date("2026-06-16T09:14:00Z") }))).toBe("QUIET_HOURS");
    expect(reason(base({ compliance, now: new Date("2026-06-16T09:15:00Z") }))).toBe("ALLOWED");
  });

  it("picks the contact's zone, else the location's, else UTC", () => {
    expect(recipientTimeZone("Europe/Paris", "America/Chicago")).toBe("Europe/Paris");
    expect(recipientTimeZone(null, "America/Chicago")).toBe("America/Chicago");
    expect(recipientTimeZone(undefined, null)).toBe("UTC");
    expect(recipientTimeZone("Not/AZone", "America/Chicago")).toBe("America/Chicago");
    expect(recipientTimeZone("", "Bad/Zone")).toBe("UTC");
  });
});

describe("frequency caps", () => {
  const DAY = 24 * 3600_000;
  const ago = (ms: number) => new Date(NOON_UTC.getTime() - ms).toISOString();

  it("counts sends in (now - 24h, now]: one exactly 24 h old no longer counts", () => {
    expect(sendsWithin([ago(DAY)], NOON_UTC, DAY)).toBe(0);
    expect(sendsWithin([ago(DAY - 1)], NOON_UTC, DAY)).toBe(1);
    expect(sendsWithin([ago(0)], NOON_UTC, DAY)).toBe(1);
    expect(sendsWithin([new Date(NOON_UTC.getTime() + 1000)], NOON_UTC, DAY)).toBe(0);
  });

  it("blocks the daily cap at exactly cap sends within 24 h", () => {
    const two = [ago(DAY - 1), ago(1000)];
    expect(reason(base({ recentSends: two }))).toBe("ALLOWED");
    expect(reason(base({ recentSends: [...two, ago(5000)] }))).toBe("FREQUENCY_CAP_DAILY");
    expect(reason(base({ recentSends: [...two, ago(DAY)] }))).toBe("ALLOWED");
  });

  it("blocks the weekly cap at exactly cap sends within 7 days", () => {
    const four = [ago(7 * DAY - 1), ago(3 * DAY), ago(2 * DAY), ago(1.5 * DAY)];
    expect(reason(base({ recentSends: four }))).toBe("ALLOWED");
    expect(reason(base({ recentSends: [...four, ago(6 * DAY)] }))).toBe("FREQUENCY_CAP_WEEKLY");
    expect(reason(base({ recentSends: [...four, ago(7 * DAY)] }))).toBe("ALLOWED");
  });

  it("reads caps from the settings; 0 blocks every send", () => {
    expect(reason(base({ compliance: { ...COMPLIANCE_DEFAULTS, frequencyCapDaily: 0 } }))).toBe("FREQUENCY_CAP_DAILY");
    expect(reason(base({ compliance: { ...COMPLIANCE_DEFAULTS, frequencyCapWeekly: 0, frequencyCapDaily: 10 } }))).toBe(
      "FREQUENCY_CAP_WEEKLY",
    );
    const many = Array.from({ length: 10 }, (_, i) => ago((i + 1) * 60_000));
    expect(
      reason(
        base({
          recentSends: many,
          compliance: { ...COMPLIANCE_DEFAULTS, frequencyCapDaily: 11, frequencyCapWeekly: 11 },
        }),
      ),
    ).toBe("ALLOWED");
    expect(
      reason(
        base({
          recentSends: many,
          compliance: { ...COMPLIANCE_DEFAULTS, frequencyCapDaily: 10, frequencyCapWeekly: 11 },
        }),
      ),
    ).toBe("FREQUENCY_CAP_DAILY");
  });
});

describe("at send time", () => {
  it("re-checks pause, suppression, address and consent but not quiet hours or caps", () => {
    const i = base({ now: new Date("2026-06-15T23:00:00Z"), recentSends: [hoursAgo(1), hoursAgo(2), hoursAgo(3)] });
    expect(evaluate(i)).toEqual({ allowed: false, blockedReason: "QUIET_HOURS" });
    expect(evaluateAtSend(i)).toEqual({ allowed: true });
    expect(evaluateAtSend({ ...i, tenant: { isActive: false } })).toEqual({
      allowed: false,
      blockedReason: "TENANT_PAUSED",
    });
    expect(evaluateAtSend({ ...i, contact: { ...i.contact, isSuppressed: true } })).toEqual({
      allowed: false,
      blockedReason: "SUPPRESSED",
    });
    expect(evaluateAtSend({ ...i, consent: { email: { status: "revoked" } } })).toEqual({
      allowed: false,
      blockedReason: "NO_CONSENT",
    });
  });
});
