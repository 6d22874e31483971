import { beforeAll, describe, expect, it } from "vitest";
import { expectInvalidQueries, keyClient } from "../helpers/checks";
import { createWorld, type World } from "../helpers/seed";
import { connect, structured } from "../mcp/helpers";
import { type SentWorld, seedSends } from "./list-fixture";

// GET /v1/solicitations and the MCP tool solicitation.list, one operation (src/modules/solicitations/operations.ts).

let w: World;
let s: SentWorld;

beforeAll(async () => {
  w = await createWorld();
  s = await seedSends(w);
});

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);
const list = async (query = "", as: Parameters<World["as"]>[0] = "viewer") => {
  const res = await w.as(as).get(`/v1/solicitations${query ? `?${query}` : ""}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
};

describe("GET /v1/solicitations", () => {
  it("lists the tenant's requests newest first, each with its contact, status, reasons and times", async () => {
    const res = await list();
    const t = s.sends;
    expect(ids(res)).toEqual([
      t.annFailed,
      t.sueSuppressed,
      t.catSms,
      t.bobNoConsent,
      t.annSms,
      t.annCampaign,
      t.annOld,
    ]);
    expect(res.body.total).toBe(7);
    const byId = Object.fromEntries(res.body.data.map((x: { id: string }) => [x.id, x]));
    expect(byId[t.annFailed]).toMatchObject({
      status: "FAILED",
      failureReason: "550 mailbox unavailable",
      channel: "email",
      contact: { id: s.contacts.ann, firstName: "Ann", lastName: "Lee" },
    });
    expect(byId[t.sueSuppressed]).toMatchObject({
      status: "BLOCKED",
      blockedReason: "SUPPRESSED",
      campaignId: s.campaignId,
      sentAt: null,
    });
    expect(byId[t.catSms]).toMatchObject({
      status: "SENT",
      channel: "sms",
      provider: "outbox",
      sentAt: expect.any(String),
      contact: { id: s.contacts.cat, email: null, phone: "+14155550123" },
    });
    expect(byId[t.annSms]).toMatchObject({ blockedReason: "MISSING_ADDRESS" });
    expect(byId[t.bobNoConsent]).toMatchObject({ blockedReason: "NO_CONSENT" });
  });

  it("filters by status, channel, campaign, contact, location and blockedReason, alone or together", async () => {
    const t = s.sends;
    expect(ids(await list("status=BLOCKED"))).toEqual([t.sueSuppressed, t.bobNoConsent, t.annSms]);
    expect(ids(await list("channel=sms"))).toEqual([t.catSms, t.annSms]);
    expect(ids(await list(`campaignId=${s.campaignId}`))).toEqual([t.sueSuppressed, t.annCampaign]);
    expect(ids(await list(`contactId=${s.contacts.ann}`))).toEqual([t.annFailed, t.annSms, t.annCampaign, t.annOld]);
    expect(ids(await list(`locationId=${s.locations.other}`))).toEqual([t.annFailed, t.catSms, t.bobNoConsent]);
    expect(ids(await list("blockedReason=NO_CONSENT"))).toEqual([t.bobNoConsent]);
    const both = await list(`contactId=${s.contacts.ann}&status=SENT&channel=email`);
    expect(ids(both)).toEqual([t.annCampaign, t.annOld]);
    expect(both.body.total).toBe(2);
  });

  it("from is inclusive and to exclusive, with any offset", async () => {
    const t = s.sends;
    const oldAt = new Date(s.oldAt);
    const recent = await list(`from=${encodeURIComponent(new Date(oldAt.getTime() + 1).toISOString())}`);
    expect(ids(recent)).not.toContain(t.annOld);
    expect(recent.body.total).toBe(6);
    expect(
      ids(
        await list(
          `from=${encodeURIComponent(s.oldAt)}&to=${encodeURIComponent(new Date(oldAt.getTime() + 1).toISOString())}`,
        ),
      ),
    ).toEqual([t.annOld]);
    // the same instant written with a +02:00 offset
    const shifted = new Date(oldAt.getTime() + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
    expect(ids(await list(`to=${encodeURIComponent(shifted)}`))).toEqual([]);
  });

  it("keyset pages walk the list without gaps or repeats", async () => {
    const seen: string[] = [];
    let cursor = "";
    for (let i = 0; i < 10; i++) {
      const page = await list(`limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...ids(page));
      if (!page.body.pageInfo.hasNextPage) break;
      cursor = page.body.pageInfo.endCursor;
    }
    expect(seen).toEqual(ids(await list()));
  });

  it("bad input is 400 VALIDATION_ERROR naming the field", async () => {
    await expectInvalidQueries(
      (query) => w.as("viewer").get(`/v1/solicitations?${query}`),
      [
        ["status=LOST", "status"],
        ["channel=fax", "channel"],
        ["blockedReason=RAIN", "blockedReason"],
        ["from=yesterday", "from"],
        ["from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z", "from"],
        ["limit=0", "limit"],
        ["cursor=not-a-cursor", "cursor"],
      ],
    );
  });

  it("another tenant's requests never appear; filtering on another tenant's contact finds nothing", async () => {
    expect(ids(await list())).not.toContain(s.tenantB.solicitationId);
    const foreign = await list(`contactId=${s.tenantB.contactId}`);
    expect(foreign.body).toMatchObject({ data: [], total: 0 });
    expect(ids(await w.as("tenantBAdmin").get("/v1/solicitations"))).toEqual([s.tenantB.solicitationId]);
  });

  it("every role of the tenant reads it; another agency's admin is 403", async () => {
    for (const as of ["viewer", "tenantUser", "manager", "tenantAdmin", "agencyAdmin", "platformAdmin"] as const)
      expect((await list("", as)).body.total, as).toBe(7);
    const other = await w.as("otherAgencyAdmin").get("/v1/solicitations");
    expect(other.status).toBe(403);
    expect(other.body.code).toBe("FORBIDDEN");
  });

  it("an API key needs read:campaigns", async () => {
    const key = (scopes: string[]) => keyClient(w, scopes);
    expect((await (await key(["read:campaigns"])).get("/v1/solicitations?status=BLOCKED")).body.total).toBe(3);
    const denied = await (await key(["read:contacts", "read:reviews"])).get("/v1/solicitations");
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("FORBIDDEN");
  });
});

describe("solicitation.list over MCP", () => {
  it("answers the REST page for the same filters, within MCP's page size", async () => {
    const key = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "mcp", scopes: ["read:campaigns"] })).body.key;
    const { client: mcp } = await connect({ token: key });
    const call = async (args: Record<string, unknown>) =>
      structured<{ data: { id: string }[]; total: number }>(
        await mcp.callTool({ name: "solicitation.list", arguments: args }),
      );
    const refused = await call({ status: "BLOCKED", blockedReason: "SUPPRESSED" });
    expect(refused.data.map((x) => x.id)).toEqual([s.sends.sueSuppressed]);
    expect((await call({ contactId: s.contacts.ann, limit: 2 })).data).toHaveLength(2);
    const tooMany = await mcp.callTool({ name: "solicitation.list", arguments: { limit: 101 } });
    expect(tooMany.isError).toBe(true);
  });
});
