import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents, solicitations } from "../../src/db/schema";
import { sendCampaign } from "../../src/modules/campaigns/send";
import { CHUNK_ROWS } from "../../src/modules/solicitations/create";
import { createWorld, db, type World } from "../helpers/seed";
import { faultyEnv, insertInto, serviceContext } from "../solicitations/faults";
import { newLocation, noQuietHours } from "../solicitations/helpers";
import { seedContacts } from "../solicitations/seed-contacts";

let w: World;
let loc: { id: string };
const CONTACTS = CHUNK_ROWS * 2 + 100; // three chunks: 500, 500, 100

beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w);
  loc = await newLocation(w);
  await seedContacts({ tenantId: w.tenantA.id, count: CONTACTS, prefix: "camp" });
});

async function newCampaign() {
  const res = await w.as("manager").post("/v1/campaigns", {
    name: `Spring ${Math.random().toString(36).slice(2, 6)}`,
    type: "one_time",
    channels: ["email"],
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const rowsOf = (campaignId: string) =>
  db().select().from(solicitations).where(eq(solicitations.campaignId, campaignId));
const auditOf = (campaignId: string, action: string, resourceType: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.tenantId, w.tenantA.id),
        eq(auditEvents.action, action),
        eq(auditEvents.resourceType, resourceType),
      ),
    )
    .then((rows) =>
      rows.filter(
        (r) =>
          JSON.stringify(r.metadata ?? {}).includes(campaignId) ||
          JSON.stringify(r.nextState ?? {}).includes(campaignId) ||
          r.resourceId === campaignId,
      ),
    );

describe("a D1 batch failure in the middle of a campaign send", { timeout: 60_000 }, () => {
  it("leaves whole chunks only (rows, events and audit together), and a retry with the same Idempotency-Key completes it without duplicates", async () => {
    const campaignId = await newCampaign();
    const key = crypto.randomUUID();
    const input = { locationId: loc.id, channel: "email" as const, limit: CONTACTS };
    // the second chunk's batch fails: the first is committed and queued, the third never runs
    const broken = faultyEnv([{ match: insertInto("solicitations"), skip: 1 }]);
    await expect(sendCampaign(serviceContext(broken.env, w.tenantA.id), campaignId, input, key)).rejects.toThrow(
      /injected fault/,
    );
    expect(broken.injected).toHaveLength(1);

    const written = await rowsOf(campaignId);
    expect(written).toHaveLength(CHUNK_ROWS);
    const chunkAudit = await auditOf(campaignId, "solicitation.created", "campaign_send");
    expect(chunkAudit).toHaveLength(1);
    expect(chunkAudit[0]!.nextState).toMatchObject({ chunk: 1, chunks: 3 });
    expect(new Set((chunkAudit[0]!.nextState as { solicitationIds: string[] }).solicitationIds)).toEqual(
      new Set(written.map((r) => r.id)),
    );
    const events = (await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id))).filter(
      (e) => e.data.campaignId === campaignId,
    );
    expect(
      events
        .filter((e) => e.type === "solicitation.created")
        .map((e) => e.data.solicitationId)
        .sort(),
    ).toEqual(written.map((r) => r.id).sort());
    expect(events.filter((e) => e.type === "campaign.sent")).toEqual([]);
    expect(await auditOf(campaignId, "campaign.sent", "campaign")).toEqual([]);

    // the client retries with the same key: only the contacts not reached yet get a solicitation
    const retry = await w.as("manager").post(`/v1/campaigns/${campaignId}/send`, input, { "idempotency-key": key });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ total: CONTACTS, queued: CONTACTS, blocked: 0, failed: 0, errors: [] });
    const all = await rowsOf(campaignId);
    expect(all).toHaveLength(CONTACTS);
    expect(new Set(all.map((r) => r.contactId)).size).toBe(CONTACTS);
    for (const r of written) expect(all.find((x) => x.id === r.id)).toBeDefined();
    expect(await auditOf(campaignId, "campaign.sent", "campaign")).toHaveLength(1);

    // a further replay (the retry's answer was lost too) creates nothing and answers the same counts
    const replay = await w.as("manager").post(`/v1/campaigns/${campaignId}/send`, input, { "idempotency-key": key });
    expect(replay.body).toMatchObject({ total: CONTACTS, queued: CONTACTS, blocked: 0, failed: 0 });
    expect(await rowsOf(campaignId)).toHaveLength(CONTACTS);
    expect(await auditOf(campaignId, "campaign.sent", "campaign")).toHaveLength(1);
  });

  it("without a key every call is a new send (the key is what ties a retry to the failed call)", async () => {
    const campaignId = await newCampaign();
    const input = {
      locationId: loc.id,
      channel: "email",
      contactIds: [(await db().select({ id: solicitations.contactId }).from(solicitations).limit(1))[0]!.id],
    };
    const a = await w.as("manager").post(`/v1/campaigns/${campaignId}/send`, input);
    const b = await w.as("manager").post(`/v1/campaigns/${campaignId}/send`, input);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await rowsOf(campaignId)).toHaveLength(2);
  });

  it("the same key on another campaign is another send; a malformed key is 400", async () => {
    const [c1, c2] = [await newCampaign(), await newCampaign()];
    const contactIds = [(await db().select({ id: solicitations.contactId }).from(solicitations).limit(1))[0]!.id];
    const key = crypto.randomUUID();
    for (const c of [c1, c2]) {
      const r = await w
        .as("manager")
        .post(
          `/v1/campaigns/${c}/send`,
          { locationId: loc.id, channel: "email", contactIds },
          { "idempotency-key": key },
        );
      expect(r.body).toMatchObject({ total: 1, failed: 0 });
      expect(await rowsOf(c)).toHaveLength(1);
    }
    const bad = await w
      .as("manager")
      .post(
        `/v1/campaigns/${c1}/send`,
        { locationId: loc.id, channel: "email", contactIds },
        { "idempotency-key": "x".repeat(256) },
      );
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toContain("idempotency-key");
  });
});
