import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { solicitations } from "../../src/db/schema";
import { expectInvalidQueries } from "../helpers/checks";
import { client } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { newContact, solicit } from "../solicitations/helpers";
import { type SentWorld, seedSends } from "../solicitations/list-fixture";

// GET /v1/compliance/refusals: the sending policy's recent refusals with their reasons, for the
// console's compliance view (issue #46), one view of the solicitation list.

let w: World;
let s: SentWorld;
/** a refusal 40 days old: outside the default range */
let oldRefusal = "";
let quietHours = "";

beforeAll(async () => {
  w = await createWorld();
  s = await seedSends(w);
  // quiet hours from this hour for two hours (the location's zone is UTC): the next request is refused for them
  const hour = (h: number) => `${String(h % 24).padStart(2, "0")}:00`;
  const now = new Date().getUTCHours();
  const quiet = await w
    .as("tenantAdmin")
    .put("/v1/compliance", { quietHoursStart: hour(now), quietHoursEnd: hour(now + 2) });
  expect(quiet.status).toBe(200);
  const dana = await newContact(w, { firstName: "Dana" });
  const res = await solicit(w, { locationId: s.locations.main, contactId: dana.id, channel: "email" });
  expect(res.body.blockedReason).toBe("QUIET_HOURS");
  quietHours = res.body.id;
  oldRefusal = s.sends.bobNoConsent;
  await db()
    .update(solicitations)
    .set({ createdAt: new Date(Date.now() - 40 * 86_400_000).toISOString() })
    .where(eq(solicitations.id, oldRefusal));
});

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);
const refusals = async (query = "", as: Parameters<World["as"]>[0] = "viewer") => {
  const res = await w.as(as).get(`/v1/compliance/refusals${query ? `?${query}` : ""}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
};

describe("GET /v1/compliance/refusals", () => {
  it("the last 30 days' refusals newest first, each with its reason and contact, and a count per reason", async () => {
    const res = await refusals();
    expect(ids(res)).toEqual([quietHours, s.sends.sueSuppressed, s.sends.annSms]);
    expect(res.body.total).toBe(3);
    expect(res.body.data.map((x: { blockedReason: string }) => x.blockedReason)).toEqual([
      "QUIET_HOURS",
      "SUPPRESSED",
      "MISSING_ADDRESS",
    ]);
    expect(res.body.data[1]).toMatchObject({ status: "BLOCKED", contact: { id: s.contacts.sue, firstName: "Sue" } });
    expect(res.body.byReason).toEqual({
      TENANT_PAUSED: 0,
      SUPPRESSED: 1,
      MISSING_ADDRESS: 1,
      NO_CONSENT: 0,
      QUIET_HOURS: 1,
      FREQUENCY_CAP_DAILY: 0,
      FREQUENCY_CAP_WEEKLY: 0,
    });
    expect(Date.now() - Date.parse(res.body.range.from)).toBeGreaterThan(30 * 86_400_000 - 60_000);
    expect(Date.now() - Date.parse(res.body.range.from)).toBeLessThan(30 * 86_400_000 + 60_000);
    expect(res.body.range.to).toBeNull();
  });

  it("from reaches further back; blockedReason narrows the list while byReason still counts every reason", async () => {
    const from = new Date(Date.now() - 60 * 86_400_000).toISOString();
    const all = await refusals(`from=${encodeURIComponent(from)}`);
    expect(ids(all)).toEqual([quietHours, s.sends.sueSuppressed, s.sends.annSms, oldRefusal]);
    expect(all.body.byReason.NO_CONSENT).toBe(1);
    expect(all.body.range.from).toBe(from);
    const consent = await refusals(`from=${encodeURIComponent(from)}&blockedReason=NO_CONSENT`);
    expect(ids(consent)).toEqual([oldRefusal]);
    expect(consent.body.total).toBe(1);
    expect(consent.body.byReason).toMatchObject({ NO_CONSENT: 1, QUIET_HOURS: 1, SUPPRESSED: 1 });
    const to = new Date(Date.now() - 86_400_000).toISOString();
    const older = await refusals(`from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    expect(ids(older)).toEqual([oldRefusal]);
    expect(older.body.range).toEqual({ from, to });
  });

  it("filters by channel and location, counts included", async () => {
    const sms = await refusals("channel=sms");
    expect(ids(sms)).toEqual([s.sends.annSms]);
    expect(sms.body.byReason).toMatchObject({ MISSING_ADDRESS: 1, SUPPRESSED: 0, QUIET_HOURS: 0 });
    expect(ids(await refusals(`locationId=${s.locations.other}`))).toEqual([]);
  });

  it("bad input is 400 VALIDATION_ERROR; another tenant's refusals never appear", async () => {
    await expectInvalidQueries(
      (query) => w.as("viewer").get(`/v1/compliance/refusals?${query}`),
      [
        ["blockedReason=RAIN", "blockedReason"],
        ["from=last-week", "from"],
        ["from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z", "from"],
      ],
    );
    const b = await w.as("tenantBAdmin").get("/v1/compliance/refusals");
    expect(b.body).toMatchObject({ data: [], total: 0 });
    expect(ids(await refusals())).not.toContain(s.tenantB.solicitationId);
  });

  it("every role of the tenant reads it; another agency's admin is 403; API keys are refused", async () => {
    for (const as of ["viewer", "tenantUser", "manager", "tenantAdmin", "agencyAdmin", "platformAdmin"] as const)
      expect((await refusals("", as)).body.total, as).toBe(3);
    expect((await w.as("otherAgencyAdmin").get("/v1/compliance/refusals")).status).toBe(403);
    const key = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "all reads" })).body.key;
    const denied = await client(key, w.tenantA.id).get("/v1/compliance/refusals");
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("FORBIDDEN");
  });
});
