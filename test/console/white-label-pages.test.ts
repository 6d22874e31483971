// The console's White label page over HTTP (#46 item 8): the brand a tenant admin saves is what the page and
// GET /v1/branding show; a logo uploaded through the page is served from our own origin (/brand-logos/...) and
// kept when the brand is saved again; an SVG or an oversized file is refused with a sentence; a hostname added
// shows the DNS records to create, "Check again" reads its verification, and it can be removed; the reset goes
// back to the agency's brand. Lower roles read but are refused, another tenant's hostname is 404. Who sees
// which page and form: matrix.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetWhiteLabels } from "../../src/modules/white-label/resolve";
import { useDnsOverHttps } from "../../src/providers/dns";
import { useCustomHostnameProvider } from "../../src/providers/hostnames";
import { CloudflareCustomHostnames } from "../../src/providers/hostnames/cloudflare";
import { cloudflareStandIn } from "../helpers/cloudflare-standin";
import { dohStandIn } from "../helpers/doh-standin";
import { createWorld, type World } from "../helpers/seed";
import { PNG_1PX } from "../white-label/helpers";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
const browsers = new Map<string, ConsoleBrowser>();
const as = (who: keyof World["users"]) => browsers.get(who)!;
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;
const cf = cloudflareStandIn({ token: "cf-test-token", zoneId: "zone123" });
const dns = dohStandIn();

/** Posts a form and lands where it redirects: the landed page's text and HTML. */
async function submit(who: keyof World["users"], path: string, fields: Record<string, string | File> = {}) {
  const b = as(who);
  const res = await b.post(path, fields);
  expect(res.status, `${path}: ${textOf(res.text).slice(0, 300)}`).toBe(303);
  const landed = await b.follow(res);
  expect(landed.status).toBe(200);
  return { text: textOf(landed.text), html: landed.text };
}

beforeAll(async () => {
  w = await createWorld({ shardA: 0, shardB: 1 });
  useCustomHostnameProvider(new CloudflareCustomHostnames({ apiToken: "cf-test-token", zoneId: "zone123" }, cf.fetch));
  useDnsOverHttps(dns.fetch);
  for (const who of ["tenantAdmin", "viewer", "tenantBAdmin", "agencyAdmin", "otherAgencyAdmin"] as const) {
    const b = new ConsoleBrowser();
    expect((await b.seededSession(w.users[who].id)).status).toBe(200);
    browsers.set(who, b);
  }
}, 60_000);
afterAll(() => {
  useCustomHostnameProvider(null);
  useDnsOverHttps(null);
});

describe("the brand", () => {
  it("saves the name, colours and support email as PUT /v1/branding takes them, and shows them", async () => {
    const saved = await submit("tenantAdmin", t("/white-label"), {
      name: "Harbour Dental",
      primaryColor: "#0F766E",
      accentColor: "#112233",
      supportEmail: "help@harbour.test",
    });
    expect(saved.text).toContain("The brand is saved");
    expect(saved.text).toContain("Harbour Dental (from your own settings below)");
    expect(saved.html).toContain('value="#0f766e"');
    expect(saved.text).toContain("#112233");
    const rest = await w.as("tenantAdmin").get("/v1/branding");
    expect(rest.body.override).toMatchObject({
      name: "Harbour Dental",
      primaryColor: "#0f766e",
      accentColor: "#112233",
      supportEmail: "help@harbour.test",
    });
  });

  it("a bad colour is refused with a sentence naming the field; nothing changes", async () => {
    const refused = await submit("tenantAdmin", t("/white-label"), { name: "Harbour Dental", primaryColor: "teal" });
    expect(refused.text).toContain("Please check the form: Button colour: A #rrggbb hex colour");
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.override.primaryColor).toBe("#0f766e");
  });

  it("uploads a logo: the page shows it from /brand-logos/, and saving the brand again keeps it", async () => {
    const up = await submit("tenantAdmin", t("/white-label/logo"), {
      file: new File([PNG_1PX], "logo.png", { type: "image/png" }),
    });
    expect(up.text).toContain("The logo is uploaded");
    const src = /<img class="brand-logo" src="([^"]+)"/.exec(up.html)?.[1];
    expect(src).toMatch(/^\/brand-logos\/[a-z0-9]+\.png$/);
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.override.logoUrl).toBe(src);
    const again = await submit("tenantAdmin", t("/white-label"), { name: "Harbour Dental", primaryColor: "#0f766e" });
    expect(again.html).toContain(`src="${src}"`);
  });

  it("an SVG and a file over 256 KB are refused with sentences, not a 500; the logo stays", async () => {
    const before = (await w.as("tenantAdmin").get("/v1/branding")).body.override.logoUrl;
    const svg = new File(['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'], "logo.svg", {
      type: "image/svg+xml",
    });
    const refused = await submit("tenantAdmin", t("/white-label/logo"), { file: svg });
    expect(refused.text).toContain("a PNG, JPEG or WebP image is accepted (not SVG)");
    const big = new Uint8Array(300 * 1024);
    big.set(PNG_1PX);
    const tooBig = await submit("tenantAdmin", t("/white-label/logo"), {
      file: new File([big], "big.png", { type: "image/png" }),
    });
    expect(tooBig.text).toContain("The logo is larger than 256 KB, so nothing was changed.");
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.override.logoUrl).toBe(before);
  });

  it("a viewer reads the page without its forms and is refused a post with a sentence", async () => {
    const page = await as("viewer").get(t("/white-label"));
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("Only a business admin can change these.");
    expect(page.text).not.toContain(`action="${t("/white-label")}"`);
    const refused = await submit("viewer", t("/white-label"), { name: "Viewer's brand" });
    expect(refused.text).toMatch(/Your role here \(Viewer\) does not allow this\./);
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.override.name).toBe("Harbour Dental");
  });

  it("resets to the default brand (DELETE /v1/branding); a second reset says the same, not a 404", async () => {
    const reset = await submit("tenantAdmin", t("/white-label/reset"));
    expect(reset.text).toContain("Your own brand is removed");
    expect(reset.text).not.toContain("Harbour Dental");
    expect(reset.text).not.toContain("Reset to the default brand");
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.override).toBeNull();
    expect((await submit("tenantAdmin", t("/white-label/reset"))).text).toContain("Your own brand is removed");
  });
});

describe("hostnames", () => {
  it("says what to do first while there is none", async () => {
    forgetWhiteLabels();
    const page = await as("tenantAdmin").get(t("/white-label"));
    expect(textOf(page.text)).toContain("No hostname of your own yet. Add one below");
  });

  it("adds one: its DNS records with copy buttons; Check again reads the proof; Remove removes it", async () => {
    const added = await submit("tenantAdmin", t("/white-label/hostnames"), { hostname: "Reviews.Harbour.test" });
    expect(added.text).toContain("reviews.harbour.test is added.");
    const host = (await w.as("tenantAdmin").get("/v1/hostnames")).body.data[0];
    expect(host.hostname).toBe("reviews.harbour.test");
    const proof = host.dns.verification as { name: string; value: string };
    expect(added.text).toContain(`CNAME (points the name at this service) reviews.harbour.test`);
    expect(added.text).toContain(`TXT (proves the name is yours) ${proof.name}`);
    expect(added.text).toContain(proof.value);
    expect(added.text).toContain("Ownership not yet proven");
    // each record's name and value has its copy button, pointing at the text it copies
    for (const id of [...added.html.matchAll(/data-copy="([^"]+)"/g)].map((m) => m[1]))
      expect(added.html).toContain(`id="${id}"`);
    expect(added.html).toMatch(/data-copy="dns-0-1-value"/);

    dns.setTxt(proof.name, proof.value);
    const id = host.id as string;
    const checked = await submit("tenantAdmin", t(`/white-label/hostnames/${id}/refresh`));
    expect(checked.text).toContain("reviews.harbour.test is not active yet (ownership verified; status pending)");
    expect(checked.text).toContain("Ownership verified");
    cf.activate("reviews.harbour.test");
    const active = await submit("tenantAdmin", t(`/white-label/hostnames/${id}/refresh`));
    expect(active.text).toContain("reviews.harbour.test is active: your links use it.");

    const removed = await submit("tenantAdmin", t(`/white-label/hostnames/${id}/delete`));
    expect(removed.text).toContain("The hostname is removed");
    expect(removed.text).toContain("No hostname of your own yet.");
    expect((await w.as("tenantAdmin").get("/v1/hostnames")).body.data).toEqual([]);
  });

  it("a name that is not a hostname is refused with a sentence", async () => {
    const refused = await submit("tenantAdmin", t("/white-label/hostnames"), { hostname: "https://x.test/path" });
    expect(refused.text).toContain("Please check the form: Hostname: A DNS hostname such as reviews.example.com");
  });

  it("another tenant's hostname under tenant A's address is 404", async () => {
    const b = await w.as("tenantBAdmin").post("/v1/hostnames", { hostname: "reviews.other-tenant.test" });
    expect(b.status).toBe(201);
    for (const action of ["refresh", "delete"]) {
      const res = await as("tenantAdmin").post(t(`/white-label/hostnames/${b.body.id}/${action}`));
      expect(res.status, action).toBe(404);
    }
    expect((await w.as("tenantBAdmin").get(`/v1/hostnames/${b.body.id}`)).status).toBe(200);
  });
});

describe("the agency's white label (/app/agency/{agencyId}/white-label)", () => {
  const a = (p = "") => `/app/agency/${w.agencyA.id}/white-label${p}`;

  it("an agency admin saves the agency's colours, read back over REST /agency/...", async () => {
    expect((await as("agencyAdmin").get("/app/agency")).text).toContain(`href="${a()}"`);
    const saved = await submit("agencyAdmin", a(), {
      name: "North Agency",
      primaryColor: "#123456",
      accentColor: "",
      supportEmail: "help@north.test",
    });
    expect(saved.text).toContain("The agency's brand is saved.");
    expect(saved.html).toContain('value="#123456"');
    const rest = await w.as("agencyAdmin").get(`/agency/agencies/${w.agencyA.id}/branding`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ name: "North Agency", primaryColor: "#123456", supportEmail: "help@north.test" });
  });

  it("adds a hostname and sees its DNS records with copy buttons", async () => {
    const added = await submit("agencyAdmin", a("/hostnames"), { hostname: "reviews.north-agency.test" });
    expect(added.text).toContain("reviews.north-agency.test is added.");
    const host = (await w.as("agencyAdmin").get(`/agency/agencies/${w.agencyA.id}/hostnames`)).body.data[0];
    const proof = host.dns.verification as { name: string; value: string };
    expect(added.text).toContain(`TXT (proves the name is yours) ${proof.name}`);
    expect(added.html).toMatch(/data-copy="dns-0-1-value"/);
  });

  it("another agency's admin gets 404; a tenant admin is refused", async () => {
    expect((await as("otherAgencyAdmin").get(a())).status).toBe(404);
    expect((await as("otherAgencyAdmin").post(a(), { name: "Taken" })).status).toBe(404);
    expect((await as("tenantAdmin").get(a())).status).toBe(403);
    expect((await w.as("agencyAdmin").get(`/agency/agencies/${w.agencyA.id}/branding`)).body.name).toBe("North Agency");
  });
});
