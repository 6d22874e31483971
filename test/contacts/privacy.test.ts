import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq, inArray, like } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CRONS } from "../../src/background/cron";
import {
  auditEvents,
  backgroundJobs,
  consentRecords,
  contactCounts,
  contacts,
  domainEvents,
} from "../../src/db/schema";
import { installHooks } from "../../src/hooks";
import worker from "../../src/index";
import { addDays, nowIso } from "../../src/lib/time";
import type { PersonalDataStep } from "../../src/modules/compliance/personal-data";
import { runRetentionSweep } from "../../src/modules/contacts/retention";
import { HOOKS } from "../../src/wiring";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const newContact = async (
  email: string,
  extra: Record<string, unknown> = {},
  as: Parameters<World["as"]>[0] = "tenantUser",
) => (await w.as(as).post("/v1/contacts", { email, ...extra })).body as { id: string };
const row = (id: string) => db().select().from(contacts).where(eq(contacts.id, id)).get();

const PERSONAL = {
  email: null,
  phone: null,
  firstName: null,
  lastName: null,
  locale: null,
  timezone: null,
  externalIds: {},
  sourceMetadata: {},
  nameKey: null,
  nameKeyReversed: null,
  lastActivityAt: null,
};

describe("GET /v1/contacts/{id}/export", () => {
  it("returns the contact and its consent history to a manager, and audits the export", async () => {
    const c = await newContact("export@example.test", { firstName: "Ex", phone: "+1 212 555 0150" });
    await w
      .as("tenantUser")
      .post(`/v1/contacts/${c.id}/consent`, { channel: "email", source: "form", ipAddress: "198.51.100.4" });
    const res = await w.as("manager").get(`/v1/contacts/${c.id}/export`);
    expect(res.status).toBe(200);
    expect(res.body.contact).toMatchObject({
      id: c.id,
      email: "export@example.test",
      firstName: "Ex",
      phone: "+12125550150",
    });
    expect(res.body.records.consentRecords).toEqual([
      expect.objectContaining({ channel: "email", status: "granted", ipAddress: "198.51.100.4" }),
    ]);
    expect(res.body.records.solicitations).toEqual([]);
    expect(Date.parse(res.body.exportedAt)).toBeGreaterThan(0);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, c.id), eq(auditEvents.action, "contact.exported")));
    expect(audit[0]).toMatchObject({
      actorId: w.users.manager.id,
      metadata: expect.objectContaining({ kinds: ["consentRecords", "solicitations", "feedback"] }),
    });
  });

  it("is for managers and up", async () => {
    const c = await newContact("export2@example.test");
    expect((await w.as("tenantUser").get(`/v1/contacts/${c.id}/export`)).status).toBe(403);
    expect((await w.as("viewer").get(`/v1/contacts/${c.id}/export`)).status).toBe(403);
  });
});

describe("DELETE /v1/contacts/{id} (erasure)", () => {
  it("wipes every personal field, suppresses for good, keeps the row and the count", async () => {
    const c = await newContact("erase.me@example.test", {
      phone: "+1 212 555 0151",
      firstName: "Erin",
      lastName: "Rase",
      locale: "en-US",
      timezone: "America/Denver",
      externalIds: { crm: "secret-id" },
      sourceMetadata: { note: "vip" },
    });
    await w.as("tenantUser").post(`/v1/contacts/${c.id}/consent`, {
      channel: "sms",
      source: "paper form",
      ipAddress: "198.51.100.9",
      userAgent: "UA",
    });
    const totalBefore = (await w.as("viewer").get("/v1/contacts?limit=1")).body.total;

    const res = await w.as("tenantAdmin").delete(`/v1/contacts/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: c.id,
      email: null,
      phone: null,
      firstName: null,
      lastName: null,
      isSuppressed: true,
      suppressionReason: "erased",
    });

    expect(await row(c.id)).toMatchObject({
      ...PERSONAL,
      isSuppressed: true,
      suppressionReason: "erased",
      anonymizedAt: expect.any(String),
    });
    const consent = await db().select().from(consentRecords).where(eq(consentRecords.contactId, c.id));
    expect(consent).toEqual([
      expect.objectContaining({
        channel: "sms",
        status: "granted",
        source: "redacted",
        ipAddress: null,
        userAgent: null,
      }),
    ]);
    // nothing anywhere still names the person
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.tenantId, w.tenantA.id));
    const events = await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id));
    for (const secret of ["erase.me", "12125550151", "Erin", "Rase", "secret-id", "198.51.100.9", "paper form"]) {
      expect(JSON.stringify(await row(c.id))).not.toContain(secret);
      expect(JSON.stringify(audit)).not.toContain(secret);
      expect(JSON.stringify(events)).not.toContain(secret);
    }
    expect(audit.find((a) => a.resourceId === c.id && a.action === "contact.erased")).toMatchObject({
      actorId: w.users.tenantAdmin.id,
    });
    expect(events.find((e) => e.type === "contact.suppressed" && e.data.contactId === c.id)).toMatchObject({
      data: { reason: "erased" },
    });

    expect((await w.as("viewer").get("/v1/contacts?limit=1")).body.total).toBe(totalBefore);
    expect((await w.as("viewer").get("/v1/contacts?search=erase")).body.total).toBe(0);
  });

  it("clears the kept input (an imported CSV) of the tenant's finished jobs; a job still running and other tenants' keep theirs", async () => {
    const c = await newContact("in.a.csv@example.test");
    const csv = "email,firstName\nin.a.csv@example.test,Cee\n";
    const now = nowIso();
    const job = (tenantId: string, status: "succeeded" | "running" | "cancelled") => ({
      id: `job_${crypto.randomUUID().replaceAll("-", "")}`,
      tenantId,
      type: "contacts_import" as const,
      status,
      counts: { done: 1, total: 1 },
      input: { csv, fileName: "people.csv" },
      startedAt: now,
      finishedAt: status === "running" ? null : now,
      createdAt: now,
      updatedAt: now,
    });
    const [finished, cancelled, running, otherTenant] = [
      job(w.tenantA.id, "succeeded"),
      job(w.tenantA.id, "cancelled"),
      job(w.tenantA.id, "running"),
      job(w.tenantB.id, "succeeded"),
    ];
    for (const j of [finished, cancelled, running, otherTenant]) await db().insert(backgroundJobs).values(j);

    expect((await w.as("tenantAdmin").delete(`/v1/contacts/${c.id}`)).status).toBe(200);

    const input = async (id: string) =>
      (await db().select().from(backgroundJobs).where(eq(backgroundJobs.id, id)).get())?.input;
    expect(await input(finished.id)).toBeNull();
    expect(await input(cancelled.id)).toBeNull();
    // an import in flight needs its file; it is cleared 7 days after it finishes (docs/automation.md, Retention of finished jobs)
    expect(await input(running.id)).toEqual({ csv, fileName: "people.csv" });
    expect(await input(otherTenant.id)).toEqual({ csv, fileName: "people.csv" });
  });

  it("leaves an erased contact alone: no unsuppress, no consent, no second erasure, never matched again", async () => {
    const c = await newContact("gone@example.test");
    await w.as("tenantAdmin").delete(`/v1/contacts/${c.id}`);
    const moves = [
      await w.as("tenantUser").delete(`/v1/contacts/${c.id}/suppress`),
      await w.as("tenantUser").post(`/v1/contacts/${c.id}/consent`, { channel: "email", source: "x" }),
      await w.as("tenantAdmin").delete(`/v1/contacts/${c.id}`),
    ];
    for (const m of moves) expect(m.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "erased" } });
    const again = await newContact("gone@example.test");
    expect(again.id).not.toBe(c.id);
    expect(await row(c.id)).toMatchObject({ email: null });
  });

  it("is for tenant admins, and only when allowDataDeletion / allowDataExport are on", async () => {
    const c = await newContact("kept@example.test");
    expect((await w.as("manager").delete(`/v1/contacts/${c.id}`)).status).toBe(403);
    await w.as("tenantAdmin").put("/v1/compliance", { allowDataDeletion: false, allowDataExport: false });
    const erase = await w.as("tenantAdmin").delete(`/v1/contacts/${c.id}`);
    expect(erase.status).toBe(403);
    expect(erase.body.error).toMatch(/deletion is disabled/);
    // named, so a client words it rather than reading a role refusal (the console, docs/console.md "Contacts")
    expect(erase.body.details).toEqual({ reason: "deletion_disabled" });
    const exp = await w.as("tenantAdmin").get(`/v1/contacts/${c.id}/export`);
    expect(exp.status).toBe(403);
    expect(exp.body.error).toMatch(/export is disabled/);
    expect(exp.body.details).toEqual({ reason: "export_disabled" });
    expect(await row(c.id)).toMatchObject({ email: "kept@example.test", anonymizedAt: null });
    await w.as("tenantAdmin").put("/v1/compliance", { allowDataDeletion: true, allowDataExport: true });
  });
});

describe("retention sweep", () => {
  const backdate = async (ids: string[], days: number) => {
    for (let i = 0; i < ids.length; i += 90) {
      await db()
        .update(contacts)
        .set({ lastActivityAt: nowIso(addDays(new Date(), -days)) })
        .where(inArray(contacts.id, ids.slice(i, i + 90)));
    }
  };
  const runDaily = () =>
    worker.scheduled!(createScheduledController({ cron: CRONS.daily, scheduledTime: Date.now() }), env);

  afterEach(() => {
    installHooks(HOOKS);
  });

  it("anonymises contacts idle past their tenant's retentionDays, in batches, audited as system, idempotently", async () => {
    const emails = Array.from({ length: 230 }, (_, i) => `old${i}@retention.test`);
    const form = new FormData();
    form.append("file", new File([["email,firstName", ...emails.map((e) => `${e},Old`)].join("\n")], "old.csv"));
    expect((await w.as("tenantUser").post("/v1/contacts/import/csv", form)).body.imported).toBe(230);
    const old = await db()
      .select({ id: contacts.id })
      .from(contacts)
      .where(like(contacts.email, "old%@retention.test"));
    expect(old).toHaveLength(230);
    const recent = await newContact("recent@retention.test");
    const borderline = await newContact("borderline@retention.test");
    await backdate(
      old.map((c) => c.id),
      731,
    );
    await backdate([borderline.id], 729);
    // tenant B keeps data 90 days only
    await w.as("tenantBAdmin").put("/v1/compliance", { retentionDays: 90 });
    const b = await newContact("b-old@retention.test", {}, "tenantBAdmin");
    const bRecent = await newContact("b-recent@retention.test", {}, "tenantBAdmin");
    await backdate([b.id], 91);
    await backdate([bRecent.id], 89);
    const countBefore = await db().select().from(contactCounts).where(eq(contactCounts.tenantId, w.tenantA.id)).get();

    await runDaily();

    for (const c of [...old, b])
      expect(await row(c.id)).toMatchObject({ ...PERSONAL, isSuppressed: true, suppressionReason: "retention" });
    for (const c of [recent, borderline, bRecent]) expect((await row(c.id))!.email).not.toBeNull();
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.action, "contact.retention_anonymized"));
    expect(
      audit.every(
        (a) => a.actorType === "system" && a.actorId === null && (a.metadata as { job: string }).job === "retention",
      ),
    ).toBe(true);
    const swept = audit.flatMap((a) => (a.nextState as { contactIds: string[] }).contactIds);
    expect(new Set(swept)).toEqual(new Set([...old.map((c) => c.id), b.id]));
    expect(audit.filter((a) => a.tenantId === w.tenantA.id).length).toBeGreaterThanOrEqual(3);
    expect(await db().select().from(contactCounts).where(eq(contactCounts.tenantId, w.tenantA.id)).get()).toEqual(
      countBefore,
    );

    // a second run finds nothing left to do
    expect(await runRetentionSweep(env, db(), new Date())).toEqual({ anonymized: 0, expired: 0 });
  }, 30_000);

  it("runs every registered kind's own expiry until a short batch", async () => {
    const calls: number[] = [];
    const results = [100, 100, 7];
    const step: PersonalDataStep = {
      key: "testExpiring",
      exportRows: async () => [],
      erase: () => [],
      expire: async (system, now, limit) => {
        expect(system.actor).toEqual({ type: "system", name: "retention" });
        expect(Date.parse(now)).toBeGreaterThan(0);
        calls.push(limit);
        return results.shift() ?? 0;
      },
    };
    installHooks({ ...HOOKS, personalData: [...HOOKS.personalData, step] });
    expect(await runRetentionSweep(env, db(), new Date())).toEqual({ anonymized: 0, expired: 207 });
    expect(calls).toEqual([100, 100, 100]);
  });
});
