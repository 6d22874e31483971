import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect, vi } from "vitest";
import type { ShardDb } from "../../src/db/client";
import { outboxMessages, solicitations } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { mintLinkToken } from "../../src/modules/links/tokens";
import { type DeliveryDeps, deliverSends } from "../../src/modules/solicitations/delivery";
import type { FetchLike } from "../../src/providers/messaging/types";
import { db, type World } from "../helpers/seed";

type Actor = Parameters<World["as"]>[0];

export async function newLocation(w: World, as: Actor = "manager", body: Record<string, unknown> = {}) {
  const res = await w
    .as(as)
    .post("/v1/locations", { name: `Loc ${Math.random().toString(36).slice(2, 7)}`, timezone: "UTC", ...body });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string };
}

let n = 0;
/** A contact with consent granted on the given channels. */
export async function newContact(
  w: World,
  o: {
    email?: string | null;
    phone?: string | null;
    consent?: string[];
    as?: Actor;
    timezone?: string;
    firstName?: string;
  } = {},
) {
  const i = n++;
  const as = o.as ?? "tenantUser";
  const body: Record<string, unknown> = { firstName: o.firstName ?? `Ann${i}`, lastName: "Lee" };
  if (o.email !== null) body.email = o.email ?? `c${i}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  if (o.phone) body.phone = o.phone;
  if (o.timezone) body.timezone = o.timezone;
  const res = await w.as(as).post("/v1/contacts", body);
  expect(res.status).toBe(201);
  for (const channel of o.consent ?? ["email"]) {
    const g = await w.as(as).post(`/v1/contacts/${res.body.id}/consent`, { channel, source: "test" });
    expect(g.status).toBe(201);
  }
  return res.body as { id: string; email: string | null; phone: string | null };
}

/** Compliance with quiet hours switched off (start == end), so route tests do not depend on the clock. */
export async function noQuietHours(w: World, as: Actor = "tenantAdmin", extra: Record<string, unknown> = {}) {
  const res = await w.as(as).put("/v1/compliance", { quietHoursStart: "00:00", quietHoursEnd: "00:00", ...extra });
  expect(res.status).toBe(200);
}

export const uuid = () => crypto.randomUUID();

export const solicit = (
  w: World,
  body: Record<string, unknown>,
  key: string | null = uuid(),
  as: Actor = "tenantUser",
) => w.as(as).post("/v1/solicitations", body, key === null ? {} : { "idempotency-key": key });

/** Runs the SENDS consumer on these solicitations, as the queue would (attempt numbers settable). */
export async function runSends(ids: string[], o: { attempts?: number; fetch?: FetchLike; now?: () => Date } = {}) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch(
    "sends",
    ids.map((solicitationId, i) => ({
      id: `m-${solicitationId}-${i}-${Math.random()}`,
      timestamp: new Date(),
      attempts: o.attempts ?? 1,
      body: { solicitationId },
    })),
  );
  const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
  const deps: DeliveryDeps = { fetch: o.fetch, now: o.now };
  await deliverSends(batch, env, db(), ctx, deps);
  const delays = retries.flatMap((r) => r.mock.calls.map(([x]) => x?.delaySeconds));
  return { ...(await getQueueResult(batch, ctx)), delays };
}

export const solicitationRow = (id: string) => db().select().from(solicitations).where(eq(solicitations.id, id)).get();
export const outboxFor = (id: string) =>
  db().select().from(outboxMessages).where(eq(outboxMessages.solicitationId, id));

/**
 * Polls until the solicitation reaches the status (the SENDS queue runs on its own in the test pool). The limit
 * only guards against a hang: with the longest files first (test/setup/duration-sequencer.ts) four heavy files
 * share the 2 CI cores at the start of the run, and a send took over 8 s to be delivered there once.
 */
export async function waitForStatus(id: string, status: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await solicitationRow(id);
    if (row?.status === status) return row;
    if (Date.now() > deadline) throw new Error(`solicitation ${id} is ${row?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A PENDING solicitation written straight to D1, NOT queued: for driving the consumer by hand. */
export async function pendingRow(o: {
  tenantId: string;
  contactId: string;
  locationId: string;
  channel?: "email" | "sms" | "whatsapp";
  templateId?: string | null;
  campaignId?: string | null;
  createdAt?: string;
  metadata?: Record<string, unknown>;
  /** the tenant's shard (default: shard 0) */
  on?: ShardDb;
}) {
  const id = newId();
  const createdAt = o.createdAt ?? new Date().toISOString();
  await (o.on ?? db()).insert(solicitations).values({
    id,
    tenantId: o.tenantId,
    locationId: o.locationId,
    contactId: o.contactId,
    channel: o.channel ?? "email",
    status: "PENDING",
    shortLinkToken: await mintLinkToken(env.JWT_SECRET!, {
      solicitationId: id,
      tenantId: o.tenantId,
      locationId: o.locationId,
      destination: "auto",
    }),
    templateId: o.templateId ?? null,
    campaignId: o.campaignId ?? null,
    idempotencyKey: id,
    metadata: o.metadata ?? {},
    createdAt,
    updatedAt: createdAt,
  });
  return id;
}

/** An approved template of the tenant. */
export async function approvedTemplate(
  w: World,
  body: Record<string, unknown>,
  as: { author?: Actor; approver?: Actor } = {},
) {
  const t = await w
    .as(as.author ?? "tenantUser")
    .post("/v1/templates", { name: `T ${Math.random().toString(36).slice(2, 6)}`, ...body });
  expect(t.status).toBe(201);
  const a = await w.as(as.approver ?? "manager").post(`/v1/templates/${t.body.id}/approve`);
  expect(a.status).toBe(200);
  return a.body as { id: string };
}
