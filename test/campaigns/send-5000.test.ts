import { eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { solicitations } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation, noQuietHours } from "../solicitations/helpers";
import { seedContacts } from "../solicitations/seed-contacts";

let w: World;
beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w);
  await seedContacts({ tenantId: w.tenantA.id, count: 5000 });
}, 120_000);

it("sends a campaign to 5,000 contacts in one request, well within the Workers limits", async () => {
  const loc = await newLocation(w);
  const campaign = (await w.as("manager").post("/v1/campaigns", { name: "Big", type: "one_time", channels: ["email"] }))
    .body;
  const started = performance.now();
  const res = await w
    .as("manager")
    .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email", limit: 5000 });
  const requestMs = performance.now() - started;
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ total: 5000, queued: 5000, blocked: 0, failed: 0, errors: [] });
  const rows = await db()
    .select({ status: solicitations.status })
    .from(solicitations)
    .where(eq(solicitations.campaignId, campaign.id));
  expect(rows).toHaveLength(5000);
  // the queue starts delivering at once: every row is PENDING or already SENT
  expect(rows.every((r) => r.status === "PENDING" || r.status === "SENT")).toBe(true);
  console.log(`campaign send to 5,000 contacts: HTTP call ${Math.round(requestMs)} ms`);
  expect(requestMs).toBeLessThan(15_000);
}, 120_000);
