import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { compareKeys, mergeSorted } from "../../src/db/cross-shard";
import { analyticsReviewDaily, auditEvents, campaigns, locations, outboxMessages } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import { newId } from "../../src/lib/ids";
import { countRoundTrips } from "../helpers/d1-counter";
import { type ApiResponse, client } from "../helpers/http";
import { seedAgency, seedTenant, seedUser } from "../helpers/seed";

/**
 * Agency and admin lists across shards (docs/scaling.md "Cross-shard reads"): agency A owns a tenant
 * on shard 0 and two on shard 1, agency B one on each shard; rows are interleaved in time (with
 * equal timestamps across shards, broken by id), and every list is paged with a small limit.
 */
type Tenant = Awaited<ReturnType<typeof seedTenant>>;
type Page = {
  data: { id: string; tenant?: { id: string; name: string; slug: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
  total: number;
};

let a0: Tenant, a1: Tenant, a1b: Tenant, b0: Tenant, b1: Tenant;
let agencyAdmin: ReturnType<typeof client>,
  otherAgencyAdmin: ReturnType<typeof client>,
  platformAdmin: ReturnType<typeof client>;
let agencyAdminToken = "";

const BASE = Date.parse("2031-05-01T10:00:00.000Z");
/** The i-th instant of the test's timeline; equal `i` on two shards is a tie broken by id. */
const at = (i: number) => new Date(BASE + i * 1000).toISOString();

/** Newest first by (createdAt, id), written out independently of the code under test. */
const newestFirst = <T extends { id: string; at: string }>(rows: T[]) =>
  [...rows].sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1)).map((r) => r.id);

/** Every page of a list, following endCursor; checks each page's shape on the way. */
async function pageThrough(get: (path: string) => Promise<ApiResponse<Page>>, path: string, limit: number) {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status).toBe(200);
    const page = res.body;
    expect(page.data.length).toBeLessThanOrEqual(limit);
    expect(page.pageInfo.hasPreviousPage).toBe(pages.length > 0);
    pages.push(page);
    cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return { pages, ids: pages.flatMap((p) => p.data.map((r) => r.id)), rows: pages.flatMap((p) => p.data) };
}

beforeAll(async () => {
  const agencyA = await seedAgency();
  const agencyB = await seedAgency();
  a0 = await seedTenant({ agencyId: agencyA.id, shard: 0, name: "A zero" });
  a1 = await seedTenant({ agencyId: agencyA.id, shard: 1, name: "A one" });
  a1b = await seedTenant({ agencyId: agencyA.id, shard: 1, name: "A one bis" });
  b0 = await seedTenant({ agencyId: agencyB.id, shard: 0 });
  b1 = await seedTenant({ agencyId: agencyB.id, shard: 1 });
  const admin = await seedUser({ grants: [{ role: "agency_admin", scopeType: "agency", scopeId: agencyA.id }] });
  agencyAdminToken = admin.token;
  agencyAdmin = client(admin.token);
  otherAgencyAdmin = client(
    (await seedUser({ grants: [{ role: "agency_admin", scopeType: "agency", scopeId: agencyB.id }] })).token,
  );
  platformAdmin = client((await seedUser({ grants: [{ role: "platform_admin", scopeType: "platform" }] })).token);
});

describe("GET /agency/locations across shards", () => {
  // [tenant, instant]: interleaved between the shards, ties at 3 and 7 across shards
  const plan = (): [Tenant, number][] => [
    [a0, 1],
    [a1, 2],
    [a0, 3],
    [a1b, 3],
    [a1, 4],
    [a0, 5],
    [a1b, 6],
    [a0, 7],
    [a1, 7],
    [a1, 8],
    [a0, 9],
    // agency B's rows sit between them in time and must never show
    [b0, 2],
    [b1, 5],
    [b1, 8],
    [b0, 9],
  ];
  const made: { id: string; at: string; tenantId: string }[] = [];

  beforeAll(async () => {
    for (const [t, i] of plan()) {
      const row = {
        id: newId(),
        tenantId: t.id,
        brandId: t.brandId,
        name: `loc ${i} of ${t.name}`,
        createdAt: at(i),
        updatedAt: at(i),
      };
      await shardDb(env, t.shard).insert(locations).values(row);
      made.push({ id: row.id, at: row.createdAt, tenantId: t.id });
    }
  });

  const ofAgencyA = () => made.filter((r) => [a0.id, a1.id, a1b.id].includes(r.tenantId));

  it("pages newest first through both shards with no duplicate and no gap, each row with its tenant", async () => {
    const { pages, ids, rows } = await pageThrough((p) => agencyAdmin.get(p), "/agency/locations", 3);
    expect(ids).toEqual(newestFirst(ofAgencyA()));
    expect(new Set(ids).size).toBe(11);
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 3, 2]);
    expect(pages.map((p) => p.total)).toEqual([11, 11, 11, 11]);
    expect(pages.at(-1)!.pageInfo.hasNextPage).toBe(false);
    const tenantOf = new Map(ofAgencyA().map((r) => [r.id, r.tenantId]));
    const byId = { [a0.id]: a0, [a1.id]: a1, [a1b.id]: a1b };
    for (const r of rows) {
      const t = byId[tenantOf.get(r.id)!]!;
      expect(r.tenant).toEqual({ id: t.id, name: t.name, slug: t.slug });
    }
  });

  it("never shows another agency's tenants, whichever shard they are on", async () => {
    const { ids } = await pageThrough((p) => otherAgencyAdmin.get(p), "/agency/locations", 2);
    expect(ids).toEqual(newestFirst(made.filter((r) => [b0.id, b1.id].includes(r.tenantId))));
    expect((await otherAgencyAdmin.get(`/agency/locations?tenantId=${a1.id}`)).status).toBe(404);
  });

  it("keeps the tenantId filter: one owned tenant on shard 1, paged", async () => {
    const { ids, pages } = await pageThrough((p) => agencyAdmin.get(p), `/agency/locations?tenantId=${a1.id}`, 2);
    expect(ids).toEqual(newestFirst(made.filter((r) => r.tenantId === a1.id)));
    expect(pages[0]!.total).toBe(4);
  });

  it("costs the directory read plus one round trip per shard touched", async () => {
    const get = (path: string) =>
      countRoundTrips(
        new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${agencyAdminToken}` } }),
      );
    await get("/agency/locations?limit=3"); // warms the principal cache: later requests pay no auth trip
    const both = await get("/agency/locations?limit=3");
    expect((both.body as Page).data.map((r) => r.id)).toEqual(newestFirst(ofAgencyA()).slice(0, 3));
    expect(both.roundTrips).toBe(1 + 2);
    const one = await get(`/agency/locations?limit=3&tenantId=${a1b.id}`);
    expect((one.body as Page).data.map((r) => r.id)).toEqual(newestFirst(made.filter((r) => r.tenantId === a1b.id)));
    expect(one.roundTrips).toBe(1 + 1);
  });
});

describe("GET /agency/campaigns across shards", () => {
  const made: { id: string; at: string; tenantId: string }[] = [];

  beforeAll(async () => {
    const plan: [Tenant, number][] = [
      [a1, 20],
      [a0, 21],
      [b1, 21],
      [a1b, 22],
      [a0, 22],
      [a1, 23],
      [b0, 23],
      [a0, 24],
    ];
    for (const [t, i] of plan) {
      const row = {
        id: newId(),
        tenantId: t.id,
        name: `campaign ${i}`,
        type: "one_time" as const,
        channels: ["email" as const],
        createdAt: at(i),
        updatedAt: at(i),
      };
      await shardDb(env, t.shard).insert(campaigns).values(row);
      made.push({ id: row.id, at: row.createdAt, tenantId: t.id });
    }
  });

  it("pages the merge of both shards with each campaign's tenant; another agency's never appear", async () => {
    const { ids, rows, pages } = await pageThrough((p) => agencyAdmin.get(p), "/agency/campaigns", 2);
    const mine = made.filter((r) => [a0.id, a1.id, a1b.id].includes(r.tenantId));
    expect(ids).toEqual(newestFirst(mine));
    expect(pages.map((p) => p.total)).toEqual([6, 6, 6]);
    expect(rows.map((r) => r.tenant!.id)).toEqual(
      newestFirst(mine).map((id) => mine.find((r) => r.id === id)!.tenantId),
    );
    const theirs = await pageThrough((p) => otherAgencyAdmin.get(p), "/agency/campaigns", 1);
    expect(theirs.ids).toEqual(newestFirst(made.filter((r) => [b0.id, b1.id].includes(r.tenantId))));
  });

  it("reads a tenant on its directory shard only: a copy on another shard (a move's source) is not listed twice", async () => {
    const original = made.find((r) => r.tenantId === a1.id)!;
    // what a move leaves on the source shard until it deletes it: the same row
    const stray = {
      id: original.id,
      tenantId: a1.id,
      name: "campaign 20",
      type: "one_time" as const,
      channels: ["email" as const],
      createdAt: original.at,
      updatedAt: original.at,
    };
    await shardDb(env, 0).insert(campaigns).values(stray);
    try {
      const { ids, pages } = await pageThrough((p) => agencyAdmin.get(p), "/agency/campaigns", 4);
      expect(ids).toEqual(newestFirst(made.filter((r) => [a0.id, a1.id, a1b.id].includes(r.tenantId))));
      expect(pages[0]!.total).toBe(6);
      // a platform admin reads every shard unfiltered: the merge keeps the row once (the total counts both copies)
      const all = await platformAdmin.get("/agency/campaigns?limit=200");
      expect(all.body.data.filter((c: { id: string }) => c.id === original.id)).toHaveLength(1);
      expect(all.body.data.map((c: { id: string }) => c.id)).toEqual([
        ...new Set(all.body.data.map((c: { id: string }) => c.id)),
      ]);
    } finally {
      await shardDb(env, 0).delete(campaigns).where(eq(campaigns.id, stray.id));
    }
  });
});

describe("GET /admin/audit-events across shards", () => {
  const action = `xshard.${newId()}`;
  const made: { id: string; at: string; tenantId: string | null }[] = [];

  beforeAll(async () => {
    // platform-level rows (tenantId null) live on the control database, shard 0
    const plan: [Tenant | null, number][] = [
      [a1, 30],
      [null, 31],
      [b0, 31],
      [a0, 32],
      [b1, 33],
      [a1b, 33],
      [a1, 34],
      [null, 35],
    ];
    for (const [t, i] of plan) {
      const row = {
        id: newId(),
        tenantId: t?.id ?? null,
        actorType: "system" as const,
        action,
        resourceType: "test",
        resourceId: String(i),
        occurredAt: at(i),
      };
      await shardDb(env, t?.shard ?? 0)
        .insert(auditEvents)
        .values(row);
      made.push({ id: row.id, at: row.occurredAt, tenantId: row.tenantId });
    }
  });

  it("merges every shard newest first for a platform admin, paged with the filters kept", async () => {
    const { ids, pages } = await pageThrough((p) => platformAdmin.get(p), `/admin/audit-events?action=${action}`, 3);
    expect(ids).toEqual(newestFirst(made));
    expect(pages.map((p) => p.total)).toEqual([8, 8, 8]);
    const ranged = await platformAdmin.get(
      `/admin/audit-events?action=${action}&from=${encodeURIComponent(at(33))}&limit=200`,
    );
    expect(ranged.body.data.map((e: { id: string }) => e.id)).toEqual(newestFirst(made.filter((r) => r.at >= at(33))));
  });

  it("shows a shard-1 tenant's events, alone under its tenantId filter", async () => {
    const { ids } = await pageThrough(
      (p) => platformAdmin.get(p),
      `/admin/audit-events?action=${action}&tenantId=${a1.id}`,
      1,
    );
    expect(ids).toEqual(newestFirst(made.filter((r) => r.tenantId === a1.id)));
  });

  it("lists the audit event a request wrote on shard 1", async () => {
    const created = await agencyAdmin.post(`/agency/tenants/${a1.id}/locations`, {
      name: "Audited",
      addressLine1: "1 Main St",
      city: "Springfield",
      state: "IL",
      postalCode: "62701",
    });
    expect(created.status).toBe(201);
    const res = await platformAdmin.get(`/admin/audit-events?resourceId=${created.body.id}`);
    expect(res.body.data.map((e: { tenantId: string; action: string }) => [e.tenantId, e.action])).toEqual([
      [a1.id, "location.created"],
    ]);
  });

  it("stays platform_admin only", async () => {
    expect((await agencyAdmin.get("/admin/audit-events")).status).toBe(403);
  });
});

describe("GET /admin/outbox across shards", () => {
  it("merges the newest messages of every shard; a tenant filter reads that tenant's", async () => {
    const to = `${newId()}@example.test`;
    const rows = [
      [a1, 40],
      [a0, 41],
      [a1, 42],
      [b1, 43],
    ] as const;
    const made: { id: string; at: string; tenantId: string }[] = [];
    for (const [t, i] of rows) {
      const row = {
        id: `outbox_${newId()}`,
        tenantId: t.id,
        channel: "email" as const,
        to,
        subject: `s${i}`,
        createdAt: at(i),
      };
      await shardDb(env, t.shard).insert(outboxMessages).values(row);
      made.push({ id: row.id, at: row.createdAt, tenantId: t.id });
    }
    const all = await platformAdmin.get("/admin/outbox?limit=200");
    expect(all.body.data.filter((m: { to: string }) => m.to === to).map((m: { id: string }) => m.id)).toEqual(
      newestFirst(made),
    );
    const one = await platformAdmin.get(`/admin/outbox?tenantId=${a1.id}&limit=1`);
    expect(one.body.data.map((m: { id: string }) => m.id)).toEqual(
      newestFirst(made.filter((r) => r.tenantId === a1.id)).slice(0, 1),
    );
  });
});

describe("the merge order", () => {
  it("is SQLite's order (text by code point, numbers before text), so merged pages follow each shard's ORDER BY", async () => {
    const values = ["b", "a", "\u{1F600}", "\uFFFD", "aa", "A", "é"];
    const sqlite = await env.DB.prepare("select value from json_each(?) order by value desc")
      .bind(JSON.stringify(values))
      .all<{ value: string }>();
    const ours = [...values].sort((x, y) => compareKeys([x, ""], [y, ""], "desc"));
    expect(ours).toEqual(sqlite.results.map((r) => r.value));
    expect(compareKeys([2, "x"], ["1", "x"], "asc")).toBeLessThan(0);
    expect(compareKeys(["t", "b"], ["t", "a"], "desc")).toBeLessThan(0);
  });

  it("keeps a row met on two shards once and stops at the limit", () => {
    const key = (r: { at: string; id: string }): [string, string] => [r.at, r.id];
    const s0 = [
      { at: "3", id: "c" },
      { at: "2", id: "b" },
      { at: "1", id: "a" },
    ];
    const s1 = [
      { at: "3", id: "d" },
      { at: "2", id: "b" },
      { at: "0", id: "z" },
    ];
    expect(mergeSorted([s0, s1], key, "desc", 10).map((r) => r.id)).toEqual(["d", "c", "b", "a", "z"]);
    expect(mergeSorted([s0, s1], key, "desc", 2).map((r) => r.id)).toEqual(["d", "c"]);
  });
});

describe("an agency with more tenants than D1 binds parameters", () => {
  it("lists and sums across 120 tenants on both shards (the tenant ids travel as one parameter)", async () => {
    const agency = await seedAgency();
    const owned: Tenant[] = [];
    for (let i = 0; i < 120; i += 20) {
      owned.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, (_, j) => seedTenant({ agencyId: agency.id, shard: (i + j) % 2 })),
        )),
      );
    }
    const day = "2031-06-01";
    for (const shard of [0, 1]) {
      const mine = owned.filter((t) => t.shard === shard);
      const db = shardDb(env, shard);
      for (let i = 0; i < mine.length; i += 10) {
        const chunk = mine.slice(i, i + 10);
        await db.batch([
          db.insert(locations).values(
            chunk.map((t, j) => ({
              id: newId(),
              tenantId: t.id,
              brandId: t.brandId,
              name: "L",
              createdAt: at(100 + i + j),
              updatedAt: at(100 + i + j),
            })),
          ),
          ...chunk.map((t) =>
            db.insert(analyticsReviewDaily).values({
              tenantId: t.id,
              day,
              locationId: "loc",
              siteType: "google",
              reviews: 1,
              rated: 1,
              ratingSum: 5,
              rating1: 0,
              rating2: 0,
              rating3: 0,
              rating4: 0,
              rating5: 1,
              positive: 1,
              neutral: 0,
              negative: 0,
            }),
          ),
        ]);
      }
    }
    const admin = client(
      (await seedUser({ grants: [{ role: "agency_admin", scopeType: "agency", scopeId: agency.id }] })).token,
    );
    const page = await admin.get("/agency/locations?limit=200");
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(120);
    expect(new Set(page.body.data.map((l: { tenant: { id: string } }) => l.tenant.id))).toEqual(
      new Set(owned.map((t) => t.id)),
    );
    const sums = await admin.get(`/agency/analytics?dateFrom=${day}&dateTo=${day}`);
    expect(sums.status).toBe(200);
    expect(sums.body.totals.reviews.count).toBe(120);
    expect(sums.body.tenants).toHaveLength(120);
  });
});
