import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { solicitations } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { mintLinkToken } from "../../src/modules/links/tokens";
import { request } from "../helpers/http";
import { pollUntil } from "../helpers/poll";
import { db, type World } from "../helpers/seed";

export { ingest, newLocation } from "../reviews/helpers";

export async function newContact(
  w: World,
  as: "manager" | "tenantBAdmin" = "manager",
  extra: Record<string, unknown> = {},
) {
  const res = await w.as(as).post("/v1/contacts", {
    email: `c-${Math.random().toString(36).slice(2, 9)}@example.test`,
    firstName: "Casey",
    lastName: "Jones",
    phone: `+1415555${Math.floor(1000 + Math.random() * 8999)}`,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

/** A sent solicitation row (what [sending] creates) with its signed short-link token. */
export async function newSolicitation(o: {
  tenantId: string;
  locationId: string;
  contactId: string;
  campaignId?: string | null;
  destination?: string;
  channel?: "email" | "sms" | "whatsapp";
}) {
  const id = newId();
  const token = await mintLinkToken(env.JWT_SECRET!, {
    solicitationId: id,
    tenantId: o.tenantId,
    locationId: o.locationId,
    destination: o.destination ?? "feedback",
  });
  const now = nowIso();
  await db()
    .insert(solicitations)
    .values({
      id,
      tenantId: o.tenantId,
      locationId: o.locationId,
      contactId: o.contactId,
      campaignId: o.campaignId ?? null,
      channel: o.channel ?? "email",
      status: "SENT",
      shortLinkToken: token,
      sentAt: now,
      createdAt: now,
      updatedAt: now,
    });
  return { id, token };
}

export const submit = (token: string, body: unknown) => request("POST", `/v1/f/${token}`, { body });

/**
 * Polls for background work's final state (deferred work: view flushes, alert emails) at pollUntil's default
 * step (test/helpers/poll.ts); throws with the last value when it never comes. The work it waits for comes
 * with a queue batch (1 s): reading every 50 ms only doubled the reads.
 */
export const eventually = <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> =>
  pollUntil(read, ok, ms);
