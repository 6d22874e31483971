import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { auditEvents, brands, tenants } from "../../src/db/schema";
import { request } from "../helpers/http";
import { db } from "../helpers/seed";

const body = {
  tenantName: "Acme Dental",
  tenantSlug: "acme-dental",
  adminEmail: "Owner@Acme.test ",
  adminPassword: "s3cure-passw0rd",
  adminName: "Olivia Owner",
};

/** the pool runs with a BOOTSTRAP_SECRET made as setup:cloudflare makes it (vitest.config.mts) */
const withSecret = { "x-bootstrap-secret": env.BOOTSTRAP_SECRET! };

describe("bootstrap, login, /me", () => {
  it("refuses a password under 8 characters before doing anything", async () => {
    const res = await request("POST", "/bootstrap", { headers: withSecret, body: { ...body, adminPassword: "short" } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues).toEqual([expect.objectContaining({ path: "adminPassword" })]);
  });

  it("refuses a password over 1,024 bytes", async () => {
    const res = await request("POST", "/bootstrap", {
      headers: withSecret,
      body: { ...body, adminPassword: "é".repeat(513) },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("adminPassword");
  });

  it("requires x-bootstrap-secret when BOOTSTRAP_SECRET is configured", async () => {
    const app = createApp();
    const send = (secret?: string) =>
      app.fetch(
        new Request("http://localhost/bootstrap", {
          method: "POST",
          headers: { "content-type": "application/json", ...(secret ? { "x-bootstrap-secret": secret } : {}) },
          body: JSON.stringify({ ...body, adminPassword: "x" }),
        }),
        { ...env, BOOTSTRAP_SECRET: "let-me-in" },
        createExecutionContext(),
      );
    const denied = await send("wrong");
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
    // the right secret gets past the check (and then fails validation on the short password)
    expect((await send("let-me-in")).status).toBe(400);
  });

  // Issue #44, item 8: without BOOTSTRAP_SECRET, /bootstrap was open in every environment. Every
  // ENVIRONMENT value × no secret configured, a wrong header and the right one; the password is too short,
  // so a request that gets past the check is a 400 and nothing is created.
  it.each(["production", "staging", "bench", "prod", "Development", undefined, "development", "test"])(
    "ENVIRONMENT %s: without BOOTSTRAP_SECRET open only in development and test; with it, the header decides",
    async (environment) => {
      const app = createApp();
      const local = environment === "development" || environment === "test";
      const send = (vars: Record<string, string | undefined>, secret?: string) =>
        app.fetch(
          new Request("http://localhost/bootstrap", {
            method: "POST",
            headers: { "content-type": "application/json", ...(secret ? { "x-bootstrap-secret": secret } : {}) },
            body: JSON.stringify({ ...body, adminPassword: "x" }),
          }),
          { ...env, ENVIRONMENT: environment, BOOTSTRAP_SECRET: undefined, ...vars },
          createExecutionContext(),
        );
      const open = await send({});
      if (local) expect(open.status).toBe(400);
      else {
        expect(open.status).toBe(403);
        expect(await open.json()).toEqual({
          code: "FORBIDDEN",
          error:
            "Bootstrap is closed: no BOOTSTRAP_SECRET is set. Set the BOOTSTRAP_SECRET secret (npm run setup:cloudflare generates one) and send it as x-bootstrap-secret",
        });
        // a header cannot open it while no secret is configured
        expect((await send({}, "anything")).status).toBe(403);
      }
      const secret = "Zm9v+YmFy/YmF6=="; // the alphabet `openssl rand -base64 32` uses
      expect((await send({ BOOTSTRAP_SECRET: secret })).status).toBe(401);
      expect((await send({ BOOTSTRAP_SECRET: secret }, "wrong")).status).toBe(401);
      expect((await send({ BOOTSTRAP_SECRET: secret }, secret)).status).toBe(400);
    },
  );

  let token = "";
  let tenantId = "";

  it("bootstraps the first tenant in the house agency with a default brand", async () => {
    const res = await request("POST", "/bootstrap", { headers: withSecret, body });
    expect(res.status).toBe(201);
    expect(res.body.tenant).toMatchObject({
      slug: "acme-dental",
      name: "Acme Dental",
      plan: "starter",
      isActive: true,
      agencyId: "agency_house",
    });
    expect(res.body.user).toMatchObject({
      email: "owner@acme.test",
      name: "Olivia Owner",
      tenantId: res.body.tenant.id,
    });
    expect(res.body.token.split(".")).toHaveLength(3);
    token = res.body.token;
    tenantId = res.body.tenant.id;

    const brandRows = await db().select().from(brands).where(eq(brands.tenantId, tenantId));
    expect(brandRows.map((b) => b.name)).toEqual(["Acme Dental"]);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, tenantId));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "platform.bootstrap",
      actorType: "platform_admin",
      actorId: res.body.user.id,
      tenantId,
    });
  });

  it("answers 409 to a second bootstrap and changes nothing", async () => {
    const res = await request("POST", "/bootstrap", { headers: withSecret, body: { ...body, tenantSlug: "another" } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "CONFLICT" });
    expect(await db().select().from(tenants).where(eq(tenants.slug, "another"))).toHaveLength(0);
  });

  it("logs in with the bootstrap credentials (email case-insensitive)", async () => {
    const res = await request("POST", "/auth/login", {
      body: { email: "OWNER@acme.test", password: body.adminPassword },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email: "owner@acme.test", tenantId });
    token = res.body.token;
  });

  it("rejects a wrong password and an unknown email alike with 401", async () => {
    const wrong = await request("POST", "/auth/login", {
      body: { email: "owner@acme.test", password: "wrong-password" },
    });
    const unknown = await request("POST", "/auth/login", {
      body: { email: "nobody@acme.test", password: "wrong-password" },
    });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "Invalid email or password", code: "UNAUTHENTICATED" });
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  it("rejects a login password under 8 characters with 400", async () => {
    const res = await request("POST", "/auth/login", { body: { email: "owner@acme.test", password: "1234567" } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });

  it("returns the profile with both role assignments on /me", async () => {
    const res = await request("GET", "/me", { token, tenantId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: "owner@acme.test",
      name: "Olivia Owner",
      tenantId,
      authProvider: "password",
      isActive: true,
    });
    expect(res.body.roles).toEqual(
      expect.arrayContaining([
        { role: "platform_admin", scope: "platform", scopeId: null },
        { role: "tenant_admin", scope: "tenant", scopeId: tenantId },
      ]),
    );
    expect(res.body.tenantAccess).toEqual({ tenantId, via: "platform", role: "tenant_admin" });
  });

  it("lists the tenant's default location set (empty) with a bootstrap token", async () => {
    const res = await request("GET", "/v1/locations", { token, tenantId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      total: 0,
    });
  });
});
