import { eq } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { brandCss, brandFooterHtml, textOn } from "../../src/modules/white-label/render";
import { forgetWhiteLabels, tenantWhiteLabel } from "../../src/modules/white-label/resolve";
import { control, createWorld, db, seedTenant, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
beforeEach(() => forgetWhiteLabels());

const agencyBrand = {
  name: "Northwind Reviews",
  logoUrl: "https://cdn.northwind.test/logo.svg",
  primaryColor: "#0F766E",
  accentColor: "#f59e0b",
  supportEmail: "Help@Northwind.test",
};

describe("agency brand", () => {
  it("an agency admin sets, reads and replaces its agency's brand; values are normalised and audited", async () => {
    const put = await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, agencyBrand);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      scope: "agency",
      scopeId: w.agencyA.id,
      name: "Northwind Reviews",
      primaryColor: "#0f766e",
      accentColor: "#f59e0b",
      supportEmail: "help@northwind.test",
    });
    const got = await w.as("agencyAdmin").get(`/agency/agencies/${w.agencyA.id}/branding`);
    expect(got.body).toEqual(put.body);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, w.agencyA.id));
    expect(audit.map((a) => a.action)).toContain("white_label.brand_saved");
    expect(audit.find((a) => a.action === "white_label.brand_saved")).toMatchObject({
      tenantId: null,
      actorId: w.users.agencyAdmin.id,
    });
  });

  it("refuses what could break a page: http or javascript logos, colour names or CSS, a multi-line name", async () => {
    const bad = await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, {
      name: "A\nB",
      logoUrl: "http://cdn.test/logo.png",
      primaryColor: "red;}body{display:none",
      accentColor: "#12345",
      supportEmail: "nope",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "accentColor",
      "logoUrl",
      "name",
      "primaryColor",
      "supportEmail",
    ]);
    const js = await w
      .as("agencyAdmin")
      .put(`/agency/agencies/${w.agencyA.id}/branding`, { name: "X", logoUrl: "javascript:alert(1)" });
    expect(js.status).toBe(400);
  });

  it("another agency's brand is 404 for its admins and for tenant roles it is 403", async () => {
    expect((await w.as("otherAgencyAdmin").get(`/agency/agencies/${w.agencyA.id}/branding`)).status).toBe(404);
    expect(
      (await w.as("otherAgencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, { name: "Hijack" })).status,
    ).toBe(404);
    expect((await w.as("otherAgencyAdmin").delete(`/agency/agencies/${w.agencyA.id}/branding`)).status).toBe(404);
    expect((await w.as("tenantAdmin").get(`/agency/agencies/${w.agencyA.id}/branding`)).status).toBe(403);
    expect((await w.as("platformAdmin").get(`/agency/agencies/${w.agencyA.id}/branding`)).body.name).toBe(
      "Northwind Reviews",
    );
    expect((await w.as("platformAdmin").get(`/agency/agencies/unknown-agency/branding`)).status).toBe(404);
  });
});

describe("tenant branding", () => {
  it("the effective brand is tenant override > agency brand > default, field by field", async () => {
    await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, agencyBrand);
    const before = await w.as("viewer").get("/v1/branding");
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      override: null,
      agency: { name: "Northwind Reviews" },
      effective: {
        name: "Northwind Reviews",
        logoUrl: agencyBrand.logoUrl,
        primaryColor: "#0f766e",
        accentColor: "#f59e0b",
        supportEmail: "help@northwind.test",
        source: "agency",
      },
      publicBaseUrl: "http://localhost:8787",
    });
    const put = await w.as("tenantAdmin").put("/v1/branding", { primaryColor: "#7C3AED", supportEmail: null });
    expect(put.status).toBe(200);
    expect(put.body.override).toMatchObject({
      scope: "tenant",
      scopeId: w.tenantA.id,
      name: null,
      primaryColor: "#7c3aed",
    });
    expect(put.body.effective).toEqual({
      name: "Northwind Reviews",
      logoUrl: agencyBrand.logoUrl,
      primaryColor: "#7c3aed",
      accentColor: "#f59e0b",
      supportEmail: "help@northwind.test",
      source: "tenant",
    });

    // the other agency's tenant sees only the default
    const b = await w.as("tenantBAdmin").get("/v1/branding");
    expect(b.body.effective).toEqual({
      name: "Reputation Operations",
      logoUrl: null,
      primaryColor: null,
      accentColor: null,
      supportEmail: null,
      source: "default",
    });

    expect((await w.as("tenantAdmin").delete("/v1/branding")).status).toBe(204);
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.effective.primaryColor).toBe("#0f766e");
    expect((await w.as("tenantAdmin").delete("/v1/branding")).status).toBe(404);
  });

  it("writes need tenant_admin (agency admins act as one); another agency's admin is refused", async () => {
    expect((await w.as("manager").put("/v1/branding", { name: "Nope" })).status).toBe(403);
    expect((await w.as("agencyAdmin").put("/v1/branding", { name: "Agency set" })).body.effective.name).toBe(
      "Agency set",
    );
    expect((await w.as("otherAgencyAdmin").get("/v1/branding")).status).toBe(403);
    await w.as("tenantAdmin").delete("/v1/branding");
  });

  it("the resolver is cached per isolate: a second read costs no D1 query", async () => {
    const tenant = await seedTenant({ agencyId: w.agencyA.id });
    const first = await tenantWhiteLabel(control(), tenant.id);
    expect(first?.brand.name).toBe("Northwind Reviews");
    const counting = Object.create(db());
    let queries = 0;
    counting.select = (...a: unknown[]) => {
      queries++;
      return db().select(...(a as []));
    };
    counting.batch = (...a: unknown[]) => {
      queries++;
      return db().batch(...(a as [never]));
    };
    expect((await tenantWhiteLabel(counting, tenant.id))?.brand).toEqual(first?.brand);
    expect(queries).toBe(0);
  });
});

describe("rendering untrusted brand values", () => {
  it("escapes names and emails, drops non-https logos and anything that is not #rrggbb", () => {
    const html = brandFooterHtml({
      name: `<script>x</script>"`,
      logoUrl: "http://evil.test/a.png",
      primaryColor: null,
      accentColor: null,
      supportEmail: `a"b@x.test`,
      source: "agency",
    });
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;x&lt;/script&gt;&quot;");
    expect(html).not.toContain("evil.test");
    expect(html).toContain('href="mailto:a&quot;b@x.test"');
    const css = brandCss({
      name: "x",
      logoUrl: null,
      primaryColor: "red;}body{display:none}",
      accentColor: "#00ff00",
      supportEmail: null,
      source: "agency",
    });
    expect(css).not.toContain("red");
    expect(css).toContain("border-top:6px solid #00ff00");
  });

  it("button text is white on dark colours and near-black on light ones", () => {
    expect(textOn("#0f766e")).toBe("#ffffff");
    expect(textOn("#fde047")).toBe("#111111");
  });
});
