import { and, count, desc, type SQL } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { inboxItems } from "../../src/db/schema";
import { encodeCursor, seek } from "../../src/lib/pagination";
import { type InboxListFilters, inboxListWhere } from "../../src/modules/inbox/service";
import { queryPlan } from "../helpers/query-plan";
import { createWorld, db, type World } from "../helpers/seed";

// The inbox list's filters (GET /v1/inbox, inbox.list) read an index range, never the tenant's whole
// table: each plan below is the service's own condition (inboxListWhere) in the page and count shapes.

let w: World;

beforeAll(async () => {
  w = await createWorld();
  // two active rules: pastSla ORs their windows
  for (const [name, filter, hours] of [
    ["Negative within a day", { rating: [1, 2] }, 24],
    ["Google within two days", { siteType: ["google"] }, 48],
  ] as const) {
    const res = await w.as("tenantAdmin").post("/v1/settings/sla-rules", {
      name,
      filter,
      responseWindowHours: hours,
      escalateAfterHours: hours * 2,
    });
    expect(res.status).toBe(201);
  }
});

const where = (q: Partial<InboxListFilters>) =>
  inboxListWhere({ db: db(), tenantId: w.tenantA.id }, { limit: 50, ...q });
const page = (cond: SQL | undefined) =>
  db().select().from(inboxItems).where(cond).orderBy(desc(inboxItems.createdAt), desc(inboxItems.id)).limit(51);
const total = (cond: SQL | undefined) => db().select({ n: count() }).from(inboxItems).where(cond);
const plans = async (q: Partial<InboxListFilters>) => {
  const cond = await where(q);
  return { page: (await queryPlan(page(cond))).join("\n"), total: (await queryPlan(total(cond))).join("\n") };
};

describe("inbox list filters are index-backed", () => {
  it("channel: its own (tenant_id, channel, created_at, id) index, no sort", async () => {
    const p = await plans({ channel: "google" });
    expect(p.page).toMatch(
      /SEARCH inbox_items USING INDEX inbox_items_tenant_channel_created_idx \(tenant_id=\? AND channel=\?\)/,
    );
    expect(p.page).not.toMatch(/TEMP B-TREE/);
    expect(p.total).toMatch(/inbox_items_tenant_channel_created_idx \(tenant_id=\? AND channel=\?\)/);
  });

  it("one exact rating: the (tenant_id, rating, created_at, id) index, no sort", async () => {
    const p = await plans({ ratingMin: 1, ratingMax: 1 });
    expect(p.page).toMatch(/inbox_items_tenant_rating_created_idx \(tenant_id=\? AND rating=\?\)/);
    expect(p.page).not.toMatch(/TEMP B-TREE/);
    expect(p.total).toMatch(/inbox_items_tenant_rating_created_idx \(tenant_id=\? AND rating=\?\)/);
  });

  it("a rating range: never a scan of the table", async () => {
    for (const q of [{ ratingMin: 4 }, { ratingMax: 2 }, { ratingMin: 2, ratingMax: 4 }]) {
      const p = await plans(q);
      for (const s of [p.page, p.total]) {
        expect(s, JSON.stringify(q)).toMatch(/SEARCH inbox_items USING (COVERING )?INDEX inbox_items_tenant_/);
        expect(s, JSON.stringify(q)).not.toMatch(/SCAN inbox_items/);
      }
    }
  });

  it("pastSla: the items older than the shortest window, probing the past-due reviews found by their own index", async () => {
    const p = await plans({ pastSla: true });
    for (const s of [p.page, p.total]) {
      expect(s).not.toMatch(/SCAN inbox_items/);
      expect(s).not.toMatch(/SCAN reviews/);
      expect(s).toMatch(
        /reviews USING INDEX reviews_tenant_status_created_idx \(tenant_id=\? AND status=\? AND created_at<\?\)/,
      );
    }
    // the review items older than the shortest window, newest first straight off the index (no sort)
    expect(p.page).toMatch(
      /SEARCH inbox_items USING INDEX inbox_items_tenant_(type_)?created_idx \(tenant_id=\? (AND type=\? )?AND created_at<\?\)/,
    );
    expect(p.page).not.toMatch(/TEMP B-TREE/);
  });

  it("filters combine on one index range", async () => {
    const p = await plans({ channel: "google", ratingMax: 2, pastSla: true, status: "new" });
    for (const s of [p.page, p.total]) expect(s).not.toMatch(/SCAN inbox_items/);
  });

  it("a later page keeps the range", async () => {
    const { cond } = seek(
      [inboxItems.createdAt, inboxItems.id],
      "desc",
      encodeCursor(["2026-01-01T00:00:00.000Z", "x"]),
    );
    const steps = (await queryPlan(page(and(await where({ channel: "google" }), cond)))).join("\n");
    expect(steps).toMatch(/inbox_items_tenant_channel_created_idx \(tenant_id=\? AND channel=\?/);
    expect(steps).not.toMatch(/TEMP B-TREE/);
  });
});
