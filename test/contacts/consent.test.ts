import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { SYSTEM_META } from "../../src/lib/context";
import { currentConsent } from "../../src/modules/contacts/consent";
import { control, createWorld, db, type World } from "../helpers/seed";

let w: World;
let id: string;
let other: string;
let bId: string;

beforeAll(async () => {
  w = await createWorld();
  id = (await w.as("tenantUser").post("/v1/contacts", { email: "consent@example.test" })).body.id;
  other = (await w.as("tenantUser").post("/v1/contacts", { email: "no-consent@example.test" })).body.id;
  bId = (await w.as("tenantBAdmin").post("/v1/contacts", { email: "b@example.test" })).body.id;
});

const ctxA = () => ({
  db: db(),
  control: control(),
  env,
  tenantId: w.tenantA.id,
  actor: { type: "system", name: "test" } as const,
  meta: SYSTEM_META,
  defer: () => {},
});

describe("consent", () => {
  it("records a grant with its source, ip and user agent", async () => {
    const res = await w.as("tenantUser").post(`/v1/contacts/${id}/consent`, {
      channel: "email",
      source: "checkout_form",
      ipAddress: "203.0.113.7",
      userAgent: "Mozilla/5.0",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      contactId: id,
      channel: "email",
      status: "granted",
      source: "checkout_form",
      ipAddress: "203.0.113.7",
      userAgent: "Mozilla/5.0",
      createdAt: expect.any(String),
    });
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, res.body.id));
    expect(audit[0]).toMatchObject({
      action: "consent.granted",
      resourceType: "consent_record",
      nextState: { contactId: id, channel: "email", status: "granted" },
    });
  });

  it("revokes, keeping the history; the latest per channel is current even within one millisecond", async () => {
    await w.as("tenantUser").post(`/v1/contacts/${id}/consent`, { channel: "sms", source: "kiosk" });
    const revoked = await w.as("tenantUser").delete(`/v1/contacts/${id}/consent/email`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      contactId: id,
      channel: "email",
      status: "revoked",
      source: "api",
      ipAddress: null,
    });
    // grant and revoke back to back: the order of writing decides, not the clock
    await w.as("tenantUser").post(`/v1/contacts/${id}/consent`, { channel: "whatsapp", source: "chat" });
    await w.as("tenantUser").delete(`/v1/contacts/${id}/consent/whatsapp`);

    const history = await w.as("viewer").get(`/v1/contacts/${id}/consent`);
    expect(history.status).toBe(200);
    expect(history.body.map((r: { channel: string; status: string }) => `${r.channel}:${r.status}`)).toEqual([
      "email:granted",
      "sms:granted",
      "email:revoked",
      "whatsapp:granted",
      "whatsapp:revoked",
    ]);

    const current = await currentConsent(ctxA(), [id, other, bId]);
    expect(current.get(id)).toEqual({
      email: { status: "revoked", at: expect.any(String) },
      sms: { status: "granted", at: expect.any(String) },
      whatsapp: { status: "revoked", at: expect.any(String) },
    });
    expect(current.get(other)).toEqual({});
    expect(current.get(bId)).toEqual({});
  });

  it("records a revoke without an earlier grant", async () => {
    const res = await w.as("tenantUser").delete(`/v1/contacts/${other}/consent/kiosk_follow_up`);
    expect(res.status).toBe(200);
    expect((await currentConsent(ctxA(), [other])).get(other)).toEqual({
      kiosk_follow_up: { status: "revoked", at: res.body.createdAt },
    });
  });

  it("rejects an unknown channel, a missing source and a bad ip with 400", async () => {
    const bad = await w.as("tenantUser").post(`/v1/contacts/${id}/consent`, { channel: "pigeon", source: "x" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toBe("channel");
    const noSource = await w.as("tenantUser").post(`/v1/contacts/${id}/consent`, { channel: "email" });
    expect(noSource.body.details.issues[0].path).toBe("source");
    const badIp = await w
      .as("tenantUser")
      .post(`/v1/contacts/${id}/consent`, { channel: "email", source: "x", ipAddress: "999.1.1.1" });
    expect(badIp.body.details.issues[0].path).toBe("ipAddress");
    const badParam = await w.as("tenantUser").delete(`/v1/contacts/${id}/consent/pigeon`);
    expect(badParam.status).toBe(400);
    expect(badParam.body.details.issues[0].path).toBe("channel");
  });

  it("does not let a viewer grant or revoke", async () => {
    expect((await w.as("viewer").post(`/v1/contacts/${id}/consent`, { channel: "email", source: "x" })).status).toBe(
      403,
    );
    expect((await w.as("viewer").delete(`/v1/contacts/${id}/consent/email`)).status).toBe(403);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.actorId, w.users.viewer.id)));
    expect(audit).toHaveLength(0);
  });
});
