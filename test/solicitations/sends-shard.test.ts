import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { outboxMessages, solicitations } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import type { Env } from "../../src/env";
import { pollUntil } from "../helpers/poll";
import { createWorld, type World } from "../helpers/seed";
import { newContact, newLocation, noQuietHours, uuid } from "./helpers";

// A tenant on shard 1 sends a review request end to end: the SENDS consumer reads everything it
// needs (white labels included, which live on the control database) and writes on shard 1.
let w: World;
beforeAll(async () => {
  w = await createWorld({ shardA: 1, shardB: 0 });
  await noQuietHours(w);
});

describe("sending for a tenant on shard 1", () => {
  it("the solicitation is sent and its outbox copy stored on shard 1, nothing on the control database", async () => {
    const brand = await w.as("tenantAdmin").put("/v1/branding", { name: "Shard One Reviews" });
    expect(brand.status, JSON.stringify(brand.body)).toBe(200);
    const location = await newLocation(w, "manager", { name: "Uptown" });
    const contact = await newContact(w);
    const res = await w
      .as("manager")
      .post(
        "/v1/solicitations",
        { locationId: location.id, contactId: contact.id, channel: "email" },
        { "idempotency-key": uuid() },
      );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = (res.body as { id: string }).id;
    const shard1 = shardDb(env as Env, 1);
    const row = await pollUntil(
      () => shard1.select().from(solicitations).where(eq(solicitations.id, id)).get(),
      (r) => r?.status !== undefined && r.status !== "PENDING",
      15_000,
    );
    expect(row).toMatchObject({ status: "SENT", provider: "outbox", failureReason: null });
    const copies = await shard1.select().from(outboxMessages).where(eq(outboxMessages.solicitationId, id));
    expect(copies).toHaveLength(1);
    expect(copies[0]!.to).toBe(contact.email);
    // the tenant's white label (a control-plane row) reached the message
    expect(copies[0]!.html).toContain("Shard One Reviews");
    const control = shardDb(env as Env, 0);
    expect(await control.select().from(solicitations).where(eq(solicitations.id, id))).toEqual([]);
  });
});
