import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { solicitations } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { b64, hmac } from "../providers/messaging/stand-in";
import { newContact, newLocation, pendingRow } from "./helpers";

/**
 * Provider webhooks of a tenant on shard 1: the tenant's own webhook keys (its messaging settings)
 * and its solicitations are tenant rows, on its shard, not on the control database (docs/scaling.md,
 * "Databases by construction").
 */
const BASE = "http://localhost:8787";
const TOKEN = "tw-shard-1-token";
const SID = `AC${"b".repeat(32)}`;
let w: World;

beforeAll(async () => {
  w = await createWorld({ shardA: 1, shardB: 0 });
  const put = await w.as("tenantAdmin").put("/v1/settings/sms", {
    provider: "twilio",
    fromNumber: "+15550002222",
    options: { accountSid: SID },
    credentials: { authToken: TOKEN },
  });
  expect(put.status).toBe(200);
});

async function twilio(params: Record<string, string>) {
  const path = `/webhooks/providers/twilio?tenant=${w.tenantA.id}`;
  const signed =
    BASE +
    path +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join("");
  return request("POST", path, {
    body: new URLSearchParams(params).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": b64(await hmac("SHA-1", TOKEN, signed)),
    },
  });
}

describe("a Twilio delivery report for a shard-1 tenant", () => {
  it("is verified with the tenant's own token and moves its solicitation on shard 1", async () => {
    const loc = await newLocation(w);
    const contact = await newContact(w, { phone: "+14155550111", consent: ["sms"] });
    const shard1 = shardDb(env, 1);
    const id = await pendingRow({
      tenantId: w.tenantA.id,
      contactId: contact.id,
      locationId: loc.id,
      channel: "sms",
      on: shard1,
    });
    await shard1
      .update(solicitations)
      .set({ status: "SENT", provider: "twilio", providerMessageId: "SM-shard-1", sentAt: new Date().toISOString() })
      .where(eq(solicitations.id, id));

    const res = await twilio({ MessageSid: "SM-shard-1", MessageStatus: "delivered", To: "+14155550111" });
    expect([res.status, res.body]).toEqual([200, { received: 1, applied: 1, consentRevoked: 0 }]);
    expect(
      (await shard1.select({ status: solicitations.status }).from(solicitations).where(eq(solicitations.id, id)).get())
        ?.status,
    ).toBe("DELIVERED");
  });
});
