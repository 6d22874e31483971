import { insertRows, newBenchId, seedLocations, waitFor, waitForQuiet } from "../lib/seed.mjs";
import { routeMissing, skipped } from "../lib/skip.mjs";

const CONTACTS = 5_000;

/**
 * POST /v1/campaigns/{id}/send to 5,000 contacts (email, approved template, consent granted, quiet
 * hours and caps out of the way), then the time until no solicitation of the campaign is PENDING.
 */
export default {
  name: "POST /v1/campaigns/{id}/send (5,000)",
  async run({ url, session, db }) {
    const api = async (method, path, body) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { ...session.headers, "content-type": "application/json" },
        body: body && JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    if (
      await routeMissing(url, "/v1/campaigns/probe/send", {
        method: "POST",
        headers: { ...session.headers, "content-type": "application/json" },
        body: "{}",
      })
    ) {
      return skipped("POST /v1/campaigns/{id}/send not built in this branch (the sending helper's work)");
    }
    const [location] = await seedLocations(db, session.tenantId, 1);
    await api("PUT", "/v1/compliance", {
      requireEmailConsent: false,
      frequencyCapDaily: 100,
      frequencyCapWeekly: 500,
      quietHoursStart: "23:59",
      quietHoursEnd: "00:00",
    });
    const template = await api("POST", "/v1/templates", {
      name: "Bench request",
      channel: "email",
      subject: "How did we do, {{firstName}}?",
      bodyHtml: '<p>Hi {{firstName}}, please review {{locationName}}: <a href="{{reviewLink}}">review</a></p>',
      bodyText: "Review us: {{reviewLink}}",
    });
    await api("POST", `/v1/templates/${template.body.id}/approve`);
    const campaign = await api("POST", "/v1/campaigns", {
      name: "Bench send",
      type: "one_time",
      channels: ["email"],
      locationId: location.id,
    });

    const now = new Date().toISOString();
    const contacts = Array.from({ length: CONTACTS }, (_, i) => ({
      id: newBenchId("con"),
      tenant_id: session.tenantId,
      email: `send.${i}@bench.example`,
      first_name: `Guest${i}`,
      last_name: "Send",
      is_suppressed: 0,
      external_ids: "{}",
      source_metadata: "{}",
      name_key: `guest${i} send`,
      name_key_reversed: `send guest${i}`,
      last_activity_at: now,
      created_at: now,
      updated_at: now,
    }));
    await insertRows(db, "contacts", Object.keys(contacts[0]), contacts, 150);

    const started = performance.now();
    const send = await api("POST", `/v1/campaigns/${campaign.body.id}/send`, {
      locationId: location.id,
      channel: "email",
      templateId: template.body.id,
      contactIds: contacts.map((c) => c.id),
      limit: CONTACTS,
    });
    const answered = (performance.now() - started) / 1000;
    if (send.status !== 200) throw new Error(`send failed: ${send.status} ${JSON.stringify(send.body).slice(0, 300)}`);
    const pending = async () =>
      (
        await db
          .prepare("select count(*) as n from solicitations where campaign_id = ? and status = 'PENDING'")
          .bind(campaign.body.id)
          .first()
      ).n;
    await waitFor(async () => (await pending()) === 0, 180_000);
    const total = (performance.now() - started) / 1000;
    // the send's domain events (created, sent) keep the EVENTS consumer busy after the last send
    const settled = await waitForQuiet(db);
    const byStatus = await db
      .prepare("select status, count(*) as n from solicitations where campaign_id = ? group by status")
      .bind(campaign.body.id)
      .all();
    return {
      rps: null,
      p50: null,
      p99: null,
      p50At1: null,
      requests: 1,
      non2xx: 0,
      extra: {
        "send answered s": +answered.toFixed(2),
        "all left PENDING s": +total.toFixed(2),
        "still PENDING": await pending(),
        "events settled s": settled === null ? "timeout" : +(total + settled).toFixed(2),
        result: JSON.stringify({ queued: send.body.queued, blocked: send.body.blocked, failed: send.body.failed }),
        statuses: JSON.stringify(Object.fromEntries(byStatus.results.map((r) => [r.status, r.n]))),
      },
    };
  },
};
