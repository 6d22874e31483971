import { and, count, desc, type SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { solicitations } from "../../src/db/schema";
import { encodeCursor, seek } from "../../src/lib/pagination";
import { solicitationListWhere } from "../../src/modules/solicitations/list";
import type { SolicitationListFilters } from "../../src/modules/solicitations/schemas";
import { queryPlan } from "../helpers/query-plan";
import { db } from "../helpers/seed";

// The solicitation lists (GET /v1/solicitations, a contact's history, the policy's refusals) read an
// index range newest first, never the table: the plans of the service's own condition.

const page = (cond: SQL) =>
  db()
    .select()
    .from(solicitations)
    .where(cond)
    .orderBy(desc(solicitations.createdAt), desc(solicitations.id))
    .limit(51);
const plans = async (q: SolicitationListFilters, cursor = false) => {
  const where = solicitationListWhere("t1", q);
  const after = seek(
    [solicitations.createdAt, solicitations.id],
    "desc",
    encodeCursor(["2026-01-01T00:00:00.000Z", "x"]),
  );
  return {
    page: (await queryPlan(page(cursor ? and(where, after.cond)! : where))).join("\n"),
    total: (await queryPlan(db().select({ n: count() }).from(solicitations).where(where))).join("\n"),
  };
};

const CASES: [string, SolicitationListFilters, RegExp][] = [
  ["no filter", {}, /solicitations_tenant_created_idx \(tenant_id=\?/],
  ["status", { status: "BLOCKED" }, /solicitations_tenant_status_created_idx \(tenant_id=\? AND status=\?/],
  ["channel", { channel: "sms" }, /solicitations_tenant_channel_created_idx \(tenant_id=\? AND channel=\?/],
  ["contact", { contactId: "c1" }, /solicitations_contact_created_idx \(tenant_id=\? AND contact_id=\?/],
  ["campaign", { campaignId: "k1" }, /solicitations_campaign_created_idx \(campaign_id=\?/],
  [
    "blocked reason",
    { status: "BLOCKED", blockedReason: "QUIET_HOURS" },
    /solicitations_tenant_blocked_created_idx \(tenant_id=\? AND blocked_reason=\?/,
  ],
  [
    "contact and a time range",
    { contactId: "c1", from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z" },
    /solicitations_contact_created_idx \(tenant_id=\? AND contact_id=\? AND created_at>\? AND created_at<\?\)/,
  ],
];

describe("solicitation lists are index-backed", () => {
  for (const [name, q, index] of CASES) {
    it(`${name}: an index range newest first, no sort, no scan; the total counts in a range too`, async () => {
      for (const cursor of [false, true]) {
        const p = await plans(q, cursor);
        expect(p.page, `${name} cursor=${cursor}`).toMatch(index);
        expect(p.page).not.toMatch(/TEMP B-TREE/);
        expect(p.page).not.toMatch(/SCAN solicitations/);
        expect(p.total).not.toMatch(/SCAN solicitations/);
      }
    });
  }

  it("a location: its (tenant_id, location_id, created_at) range", async () => {
    const p = await plans({ locationId: "l1" });
    expect(p.page).toMatch(/solicitations_tenant_location_created_idx \(tenant_id=\? AND location_id=\?\)/);
    expect(p.page).not.toMatch(/SCAN solicitations/);
  });
});
