import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { solicitations } from "../../src/db/schema";
import { db, type World } from "../helpers/seed";
import { newContact, newLocation, noQuietHours, solicit, waitForStatus } from "./helpers";

/*
 * Review requests as the service makes them (POST /v1/solicitations through the sending policy and the
 * SENDS queue), for the lists over them: GET /v1/solicitations, a contact's history
 * (test/contacts/history.test.ts) and the policy's refusals (test/compliance/refusals.test.ts).
 */

export interface SentWorld {
  locations: { main: string; other: string };
  campaignId: string;
  contacts: { ann: string; bob: string; cat: string; sue: string };
  /** solicitation ids by name, oldest first */
  sends: Record<
    "annOld" | "annCampaign" | "annSms" | "bobNoConsent" | "catSms" | "sueSuppressed" | "annFailed",
    string
  >;
  /** when annOld was created (two days ago) */
  oldAt: string;
  /** tenant B's own solicitation and contact */
  tenantB: { solicitationId: string; contactId: string };
}

const pause = () => new Promise((r) => setTimeout(r, 3));

export async function seedSends(w: World): Promise<SentWorld> {
  await noQuietHours(w);
  const main = (await newLocation(w)).id;
  const other = (await newLocation(w)).id;
  const campaign = await w
    .as("manager")
    .post("/v1/campaigns", { name: "After visit", type: "one_time", channels: ["email", "sms"] });
  expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
  const ann = (await newContact(w, { firstName: "Ann" })).id;
  const bob = (await newContact(w, { firstName: "Bob", consent: [] })).id;
  const cat = (await newContact(w, { firstName: "Cat", email: null, phone: "+14155550123", consent: ["sms"] })).id;
  const sue = (await newContact(w, { firstName: "Sue" })).id;
  expect((await w.as("tenantUser").post(`/v1/contacts/${sue}/suppress`, { reason: "asked" })).status).toBe(200);

  const send = async (body: Record<string, unknown>, status: string) => {
    const res = await solicit(w, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    if (res.body.status === "PENDING") await waitForStatus(res.body.id, "SENT");
    else expect(res.body.status).toBe(status);
    await pause();
    return res.body.id as string;
  };
  const sends = {
    annOld: await send({ locationId: main, contactId: ann, channel: "email" }, "SENT"),
    annCampaign: await send(
      { locationId: main, contactId: ann, channel: "email", campaignId: campaign.body.id },
      "SENT",
    ),
    annSms: await send({ locationId: main, contactId: ann, channel: "sms" }, "BLOCKED"),
    bobNoConsent: await send({ locationId: other, contactId: bob, channel: "email" }, "BLOCKED"),
    catSms: await send({ locationId: other, contactId: cat, channel: "sms" }, "SENT"),
    sueSuppressed: await send(
      { locationId: main, contactId: sue, channel: "email", campaignId: campaign.body.id },
      "BLOCKED",
    ),
    annFailed: await send({ locationId: other, contactId: ann, channel: "email" }, "SENT"),
  };
  // what a provider's refusal leaves (delivery.ts): FAILED with the provider's reason
  await db()
    .update(solicitations)
    .set({ status: "FAILED", failureReason: "550 mailbox unavailable" })
    .where(eq(solicitations.id, sends.annFailed));
  const oldAt = new Date(Date.now() - 2 * 86_400_000).toISOString();
  await db().update(solicitations).set({ createdAt: oldAt }).where(eq(solicitations.id, sends.annOld));

  await noQuietHours(w, "tenantBAdmin");
  const locB = (await newLocation(w, "tenantBAdmin")).id;
  const contactB = (await newContact(w, { as: "tenantBAdmin" })).id;
  const b = await solicit(
    w,
    { locationId: locB, contactId: contactB, channel: "email" },
    crypto.randomUUID(),
    "tenantBAdmin",
  );
  expect(b.status).toBe(201);
  return {
    locations: { main, other },
    campaignId: campaign.body.id,
    contacts: { ann, bob, cat, sue },
    sends,
    oldAt,
    tenantB: { solicitationId: b.body.id, contactId: contactB },
  };
}
