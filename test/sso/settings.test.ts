import { X509Certificate } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, ssoConfigs } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { expiredCert, IDP, idpMetadataXml, KEYS } from "./idp";
import { enableSso, spUrls } from "./setup";

let w: World;

beforeAll(async () => {
  w = await createWorld();
});

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

describe("GET /v1/settings/sso", () => {
  it("shows the disabled defaults and the values to give the IdP before anything is saved", async () => {
    const res = await w.as("tenantAdmin").get("/v1/settings/sso");
    expect(res.status).toBe(200);
    const sp = spUrls(w.tenantA.slug);
    expect(res.body).toEqual({
      enabled: false,
      entryPoint: null,
      issuer: sp.audience,
      idpEntityId: null,
      callbackUrl: null,
      signatureAlgorithm: "sha256",
      attributeMapping: {},
      certificates: [],
      jitProvisioning: false,
      defaultRole: "tenant_user",
      enforceSso: false,
      updatedAt: null,
      serviceProvider: {
        entityId: sp.audience,
        acsUrl: sp.acsUrl,
        metadataUrl: sp.audience,
        loginUrl: `http://localhost:8787/auth/saml/${w.tenantA.slug}/init`,
      },
    });
  });

  it("is tenant_admin only", async () => {
    for (const who of ["manager", "tenantUser", "viewer"] as const) {
      expect((await w.as(who).get("/v1/settings/sso")).status, who).toBe(403);
      expect((await w.as(who).put("/v1/settings/sso", { jitProvisioning: true })).status, who).toBe(403);
      expect(
        (await w.as(who).post("/v1/settings/sso/metadata", { metadataXml: idpMetadataXml([KEYS.idp1.cert]) })).status,
        who,
      ).toBe(403);
    }
  });
});

describe("PUT /v1/settings/sso", () => {
  it("saves the configuration, shows certificates only as fingerprints, and audits the change", async () => {
    const body = await enableSso(w, {
      signatureAlgorithm: "sha512",
      attributeMapping: { email: "mail", roleValues: { Admins: "tenant_admin" } },
      defaultRole: "viewer",
    });
    expect(body).toMatchObject({
      enabled: true,
      entryPoint: IDP.ssoUrl,
      idpEntityId: IDP.entityId,
      signatureAlgorithm: "sha512",
      jitProvisioning: true,
      attributeMapping: { email: "mail", roleValues: { Admins: "tenant_admin" } },
      defaultRole: "viewer",
    });
    expect(body.certificates).toEqual([
      expect.objectContaining({
        fingerprintSha256: fingerprint(KEYS.idp1.cert),
        subject: expect.stringContaining("CN=Test-only IdP 1"),
      }),
    ]);
    expect(new Date(body.certificates[0].validTo).getTime()).toBeGreaterThan(Date.now());
    expect(JSON.stringify(body)).not.toContain("BEGIN CERTIFICATE");

    const got = await w.as("tenantAdmin").get("/v1/settings/sso");
    expect(got.body).toEqual(body);

    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "sso.updated")))
      .get();
    expect(audit).toMatchObject({
      resourceType: "sso_config",
      resourceId: w.tenantA.id,
      actorId: w.users.tenantAdmin.id,
      previousState: null,
    });
    expect(
      (audit!.nextState as { certificates: { fingerprintSha256: string }[] }).certificates[0]!.fingerprintSha256,
    ).toBe(fingerprint(KEYS.idp1.cert));
    expect(JSON.stringify(audit)).not.toContain("BEGIN CERTIFICATE");
  });

  it("keeps fields that are left out, and replaces the certificate set when given (rotation)", async () => {
    const res = await w
      .as("tenantAdmin")
      .put("/v1/settings/sso", { idpCertificates: [KEYS.idp1.cert, KEYS.idp2.cert], signatureAlgorithm: "sha256" });
    expect(res.status).toBe(200);
    expect(res.body.certificates.map((c: { fingerprintSha256: string }) => c.fingerprintSha256)).toEqual([
      fingerprint(KEYS.idp1.cert),
      fingerprint(KEYS.idp2.cert),
    ]);
    expect(res.body).toMatchObject({
      enabled: true,
      entryPoint: IDP.ssoUrl,
      attributeMapping: { email: "mail" },
      signatureAlgorithm: "sha256",
    });
  });

  it("validates: bad PEM, expired certificate, three certificates, non-URI entryPoint, unknown fields, admin as default role", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { idpCertificates: ["-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----"] },
        "idpCertificates.0",
      ],
      [{ idpCertificates: ["hello"] }, "idpCertificates.0"],
      [{ idpCertificates: [expiredCert] }, "idpCertificates.0"],
      [{ idpCertificates: [KEYS.idp1.cert, KEYS.idp2.cert, KEYS.idp1.cert] }, "idpCertificates"],
      [{ idpCertificates: [KEYS.idp1.cert, KEYS.idp1.cert] }, "idpCertificates"],
      [{ entryPoint: "not a uri" }, "entryPoint"],
      [{ entryPoint: "javascript:alert(1)" }, "entryPoint"],
      [{ callbackUrl: "ftp://x.example.test/acs" }, "callbackUrl"],
      [{ signatureAlgorithm: "md5" }, "signatureAlgorithm"],
      [{ defaultRole: "tenant_admin" }, "defaultRole"],
      [{ attributeMapping: { email: "mail", shoeSize: "x" } }, "attributeMapping"],
      [{ privateKey: "x" }, ""],
    ];
    for (const [body, path] of cases) {
      const res = await w.as("tenantAdmin").put("/v1/settings/sso", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(
        res.body.details.issues.map((i: { path: string }) => i.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const expired = await w.as("tenantAdmin").put("/v1/settings/sso", { idpCertificates: [expiredCert] });
    expect(expired.body.details.issues[0].message).toContain("expired");
  });

  it("refuses to enable without an entry point, IdP entity id and certificate", async () => {
    const res = await w.as("tenantBAdmin").put("/v1/settings/sso", { enabled: true });
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "entryPoint",
      "idpCertificates",
      "idpEntityId",
    ]);
  });

  it("keeps tenants apart: B's admin cannot reach A's settings, and B's changes leave A's alone", async () => {
    const b = w.as("tenantBAdmin");
    expect((await b.forTenant(w.tenantA.id).get("/v1/settings/sso")).status).toBe(403);
    expect((await b.forTenant(w.tenantA.id).put("/v1/settings/sso", { enabled: false })).status).toBe(403);
    const saved = await b.put("/v1/settings/sso", {
      entryPoint: "https://b-idp.example.test/sso",
      jitProvisioning: false,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.serviceProvider.acsUrl).toBe(spUrls(w.tenantB.slug).acsUrl);
    const a = await db().select().from(ssoConfigs).where(eq(ssoConfigs.tenantId, w.tenantA.id)).get();
    expect(a).toMatchObject({ entryPoint: IDP.ssoUrl, enabled: true, jitProvisioning: true });
  });
});

describe("POST /v1/settings/sso/metadata", () => {
  it("imports entity id, the HTTP-Redirect SSO URL and both signing certificates; other settings stay", async () => {
    const res = await w.as("tenantAdmin").post("/v1/settings/sso/metadata", {
      metadataXml: idpMetadataXml([KEYS.idp2.cert, KEYS.idp1.cert], "https://imported.example.test/saml/sso"),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      idpEntityId: IDP.entityId,
      entryPoint: "https://imported.example.test/saml/sso",
      enabled: true,
      attributeMapping: { email: "mail" },
    });
    expect(res.body.certificates.map((c: { fingerprintSha256: string }) => c.fingerprintSha256)).toEqual([
      fingerprint(KEYS.idp2.cert),
      fingerprint(KEYS.idp1.cert),
    ]);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "sso.metadata_imported")))
      .get();
    expect(audit?.resourceId).toBe(w.tenantA.id);
  });

  it("refuses documents that are not one usable IdP", async () => {
    const good = idpMetadataXml([KEYS.idp1.cert]);
    const cases = [
      "<not-xml",
      `<!DOCTYPE x [<!ENTITY a "b">]>${good}`,
      good.replace(/<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"[^>]*\/>/, ""),
      idpMetadataXml([]),
      idpMetadataXml([expiredCert]),
      `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${good.replace('<?xml version="1.0"?>', "").repeat(2)}</md:EntitiesDescriptor>`,
    ];
    for (const metadataXml of cases) {
      const res = await w.as("tenantAdmin").post("/v1/settings/sso/metadata", { metadataXml });
      expect(res.status, metadataXml.slice(0, 80)).toBe(400);
      expect(res.body.details.issues[0].path).toBe("metadataXml");
    }
  });
});
