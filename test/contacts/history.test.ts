import { beforeAll, describe, expect, it } from "vitest";
import { expectInvalidQueries, keyClient } from "../helpers/checks";
import { createWorld, type World } from "../helpers/seed";
import { type SentWorld, seedSends } from "../solicitations/list-fixture";

// GET /v1/contacts/{id}/solicitations: a contact's message history for the console's contact page
// (issue #46), one view of the solicitation list (src/modules/solicitations/list.ts).

let w: World;
let s: SentWorld;

beforeAll(async () => {
  w = await createWorld();
  s = await seedSends(w);
});

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);
const history = (contactId: string, query = "", as: Parameters<World["as"]>[0] = "viewer") =>
  w.as(as).get(`/v1/contacts/${contactId}/solicitations${query ? `?${query}` : ""}`);

describe("GET /v1/contacts/{id}/solicitations", () => {
  it("lists what was sent to the contact, newest first: channel, status, times, campaign, failure and refusal reasons", async () => {
    const res = await history(s.contacts.ann);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([s.sends.annFailed, s.sends.annSms, s.sends.annCampaign, s.sends.annOld]);
    expect(res.body.total).toBe(4);
    const [failed, sms, campaign, old] = res.body.data;
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "550 mailbox unavailable", channel: "email" });
    expect(sms).toMatchObject({ status: "BLOCKED", blockedReason: "MISSING_ADDRESS", channel: "sms", sentAt: null });
    expect(campaign).toMatchObject({
      status: "SENT",
      campaignId: s.campaignId,
      provider: "outbox",
      sentAt: expect.any(String),
      contact: { id: s.contacts.ann, firstName: "Ann" },
    });
    expect(old).toMatchObject({ createdAt: s.oldAt, campaignId: null });
    // someone else's history holds only theirs
    expect(ids(await history(s.contacts.bob))).toEqual([s.sends.bobNoConsent]);
    expect(
      (await history((await w.as("manager").post("/v1/contacts", { email: "new@example.com" })).body.id)).body,
    ).toMatchObject({ data: [], total: 0 });
  });

  it("filters by status, channel and time; pages by cursor", async () => {
    expect(ids(await history(s.contacts.ann, "status=SENT"))).toEqual([s.sends.annCampaign, s.sends.annOld]);
    expect(ids(await history(s.contacts.ann, "channel=sms"))).toEqual([s.sends.annSms]);
    const recent = await history(
      s.contacts.ann,
      `from=${encodeURIComponent(new Date(Date.parse(s.oldAt) + 1).toISOString())}`,
    );
    expect(ids(recent)).not.toContain(s.sends.annOld);
    const first = await history(s.contacts.ann, "limit=3");
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const second = await history(s.contacts.ann, `limit=3&cursor=${first.body.pageInfo.endCursor}`);
    expect([...ids(first), ...ids(second)]).toEqual(ids(await history(s.contacts.ann)));
    expect(second.body.pageInfo.hasNextPage).toBe(false);
  });

  it("another tenant's contact and an unknown id are 404; bad input is 400 VALIDATION_ERROR", async () => {
    for (const id of [s.tenantB.contactId, "no-such-contact"]) {
      const res = await history(id);
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    expect((await w.as("tenantBAdmin").get(`/v1/contacts/${s.tenantB.contactId}/solicitations`)).body.total).toBe(1);
    await expectInvalidQueries(
      (query) => history(s.contacts.ann, query),
      [
        ["status=LOST", "status"],
        ["channel=fax", "channel"],
        ["from=2026-13-01", "from"],
        ["limit=201", "limit"],
      ],
    );
  });

  it("every role of the tenant reads it; another agency's admin is 403; an API key needs read:contacts", async () => {
    for (const as of ["viewer", "tenantUser", "manager", "tenantAdmin", "agencyAdmin", "platformAdmin"] as const)
      expect((await history(s.contacts.ann, "", as)).body.total, as).toBe(4);
    expect((await history(s.contacts.ann, "", "otherAgencyAdmin")).status).toBe(403);
    const key = (scopes: string[]) => keyClient(w, scopes);
    const contactsKey = await key(["read:contacts"]);
    expect((await contactsKey.get(`/v1/contacts/${s.contacts.ann}/solicitations`)).body.total).toBe(4);
    const campaignsKey = await key(["read:campaigns"]);
    const denied = await campaignsKey.get(`/v1/contacts/${s.contacts.ann}/solicitations`);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("FORBIDDEN");
  });
});
