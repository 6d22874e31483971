import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { createLocation } from "../links/helpers";
import { connect, structured } from "./helpers";

/**
 * MCP tools of a tenant on shard 1: a tool reads the tenant's rows on ctx.db (the shard) and control
 * rows (white label) on ctx.control, never the one for the other (docs/scaling.md, "Audit").
 */
let w: World;
beforeAll(async () => {
  // tenant A on shard 1 (its own database, which has no control tables), tenant B on shard 0
  w = await createWorld({ shardA: 1, shardB: 0 });
});

describe("review.widgets for a shard-1 tenant", () => {
  it("lists the widget with what it shows (its white label read on the control database)", async () => {
    const loc = await createLocation(w.as("manager"), { name: "Shard One St" });
    expect(
      (
        await w
          .as("manager")
          .post("/v1/reviews/ingest", { locationId: loc.id, siteType: "google", rating: 5, text: "On shard one" })
      ).status,
    ).toBe(201);
    const created = await w
      .as("manager")
      .post("/v1/widgets", { name: "Homepage", locationId: loc.id, sites: ["google"] });
    expect(created.status).toBe(201);
    const key = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "mcp", scopes: ["read:reviews"] })).body
      .key as string;
    const { client } = await connect({ token: key });

    const result = await client.callTool({ name: "review.widgets", arguments: { locationId: loc.id } });
    expect((result as { isError?: boolean }).isError ?? false).toBe(false);
    const out = structured(result);
    expect(out.data.map((x: { id: string; tenantId: string }) => [x.id, x.tenantId])).toEqual([
      [created.body.id, w.tenantA.id],
    ]);
    expect(out.data[0].showing).toEqual({
      summary: { averageRating: 5, reviewCount: 1 },
      reviews: [expect.objectContaining({ text: "On shard one", rating: 5, site: "google" })],
    });
  });
});
