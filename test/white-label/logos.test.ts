// White-label logos (docs/white-label.md "Logos"; #45 "Own origin"): uploaded, judged by their own bytes,
// size-limited, served from our origin with an immutable address, and the only logos pages show.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { logoForm, PNG_1PX } from "./helpers";

let w: World;
const worker = (exports as unknown as { default: Fetcher }).default;
const fetchPublic = (path: string) => worker.fetch(new Request(`${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${path}`));

beforeAll(async () => {
  w = await createWorld();
});

describe("a tenant's logo", () => {
  it("is uploaded by its admin, set as the override's logo, and served from our origin as it was sent", async () => {
    await w.as("tenantAdmin").put("/v1/branding", { name: "Smile Dental", primaryColor: "#0f766e" });
    const res = await w.as("tenantAdmin").post("/v1/branding/logo", logoForm());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const url = res.body.override.logoUrl as string;
    expect(url).toMatch(/^\/brand-logos\/[a-z0-9]+\.png$/);
    // the override's other fields are kept; the effective brand shows the logo
    expect(res.body.override).toMatchObject({ name: "Smile Dental", primaryColor: "#0f766e" });
    expect(res.body.effective.logoUrl).toBe(url);

    const served = await fetchPublic(url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG_1PX);

    // a new upload is a new address; the old one is gone
    const again = await w.as("tenantAdmin").post("/v1/branding/logo", logoForm());
    const next = again.body.override.logoUrl as string;
    expect(next).not.toBe(url);
    expect((await fetchPublic(url)).status).toBe(404);
    expect((await fetchPublic(next)).status).toBe(200);
  });

  it("refuses what is not a PNG, JPEG or WebP by its bytes (SVG, HTML named .png), and anything over 256 KB", async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    for (const form of [
      logoForm(svg, "logo.svg", "image/svg+xml"),
      logoForm("<html><script>alert(1)</script></html>", "logo.png", "image/png"),
      logoForm(new Uint8Array(0), "empty.png", "image/png"),
    ]) {
      const res = await w.as("tenantAdmin").post("/v1/branding/logo", form);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR" });
      expect(JSON.stringify(res.body)).toContain("a PNG, JPEG or WebP image is accepted (not SVG)");
    }
    const big = new Uint8Array(256 * 1024 + 1);
    big.set(PNG_1PX);
    const tooBig = await w.as("tenantAdmin").post("/v1/branding/logo", logoForm(big));
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe("PAYLOAD_TOO_LARGE");
    const missing = await w.as("tenantAdmin").post("/v1/branding/logo", new FormData());
    expect(missing.status).toBe(400);
  });

  it("is the tenant admin's: a manager is refused, another tenant's admin cannot reach it", async () => {
    expect((await w.as("manager").post("/v1/branding/logo", logoForm())).status).toBe(403);
    const other = await w.as("tenantBAdmin", w.tenantA.id).post("/v1/branding/logo", logoForm());
    expect([403, 404]).toContain(other.status);
    expect((await fetchPublic("/brand-logos/unknown1.png")).status).toBe(404);
    expect((await fetchPublic("/brand-logos/..%2Fetc.png")).status).toBe(400);
  });

  it("pages show only an uploaded logo: a remote logoUrl stored by PUT is kept but never loaded", async () => {
    await w
      .as("tenantAdmin")
      .put("/v1/branding", { name: "Remote Logo Co", logoUrl: "https://cdn.example.test/l.png" });
    const branding = await w.as("tenantAdmin").get("/v1/branding");
    expect(branding.body.override.logoUrl).toBe("https://cdn.example.test/l.png");
    const { ownLogoUrl } = await import("../../src/modules/white-label/logo-url");
    expect(ownLogoUrl("https://cdn.example.test/l.png")).toBeNull();
    expect(ownLogoUrl("/brand-logos/abc.png")).toBe("/brand-logos/abc.png");
    expect(ownLogoUrl("/brand-logos/../x.png")).toBeNull();
  });
});

describe("an agency's logo", () => {
  it("needs the agency's brand first, then is set on it and served", async () => {
    const none = await w.as("agencyAdmin").post(`/agency/agencies/${w.agencyA.id}/branding/logo`, logoForm());
    expect(none.status).toBe(404);
    await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, { name: "Northwind" });
    const res = await w.as("agencyAdmin").post(`/agency/agencies/${w.agencyA.id}/branding/logo`, logoForm());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: "Northwind", logoUrl: expect.stringMatching(/^\/brand-logos\/.+\.png$/) });
    expect((await fetchPublic(res.body.logoUrl)).status).toBe(200);
    // another agency's admin cannot
    const other = await w.as("otherAgencyAdmin").post(`/agency/agencies/${w.agencyA.id}/branding/logo`, logoForm());
    expect(other.status).toBe(404);
  });
});
