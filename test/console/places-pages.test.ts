// The console's pages about a tenant's places and connections over HTTP (#46 item 3): Locations, Review sites,
// Email/SMS/WhatsApp, Review links and QR codes, Widgets, Alerts. Each page shows the tenant's values; each form
// changes what its REST twin changes (read back over REST); the services' refusals arrive as sentences; secrets
// typed into a form never come back in any page; another tenant's ids are 404. Who sees which page:
// matrix.test.ts.
import { and, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { alertSends, integrations, reviewLinkClicks } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { markNeedsAttention } from "../../src/modules/integrations/attention";
import { request } from "../helpers/http";
import { createWorld, shardOf, type World } from "../helpers/seed";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
const browsers = new Map<string, ConsoleBrowser>();
const as = (who: keyof World["users"]) => browsers.get(who)!;
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;
const rest = (who: keyof World["users"] = "tenantAdmin") => w.as(who);
let locationA: string;
let locationB: string;

/** Posts a form and lands where it redirects; the landed page's text. */
async function submit(b: ConsoleBrowser, path: string, fields: Record<string, string | string[]> = {}) {
  const res = await b.post(path, fields);
  expect(res.status, `${path}: ${textOf(res.text).slice(0, 300)}`).toBe(303);
  const landed = await b.follow(res);
  expect(landed.status).toBe(200);
  return { text: textOf(landed.text), html: landed.text };
}

/** Requests the Worker makes to these hosts are answered here (the providers' stand-ins), others go out as usual. */
const realFetch = globalThis.fetch;
function answerFetch(answer: (url: URL, init?: RequestInit) => Response | undefined) {
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return answer(url, init) ?? realFetch(input, init);
  }) as typeof fetch;
}
afterEach(() => {
  globalThis.fetch = realFetch;
});
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

beforeAll(async () => {
  w = await createWorld({ shardA: 0, shardB: 1 });
  for (const who of ["tenantAdmin", "manager", "tenantUser", "viewer", "tenantBAdmin"] as const) {
    const b = new ConsoleBrowser();
    expect((await b.seededSession(w.users[who].id)).status).toBe(200);
    browsers.set(who, b);
  }
  locationA = (await rest("manager").post("/v1/locations", { name: "Quay Street", googlePlaceId: "ChIJquay" })).body.id;
  locationB = (await rest("tenantBAdmin").post("/v1/locations", { name: "B's own place" })).body.id;
}, 60_000);

describe("Locations", () => {
  it("adds a location with its address and review-site ids, as REST then reads it", async () => {
    const added = await submit(as("manager"), t("/locations"), {
      name: "Harbour Street",
      addressLine1: "1 Harbour Street",
      addressLine2: "",
      city: "Portland",
      state: "ME",
      postalCode: "04101",
      country: "us",
      timezone: "America/New_York",
      phone: "",
      email: "",
      websiteUrl: "https://harbour.example",
      googlePlaceId: "ChIJharbour123",
      googleMyBusinessUrl: "",
      yelpBusinessId: "harbour-dental-portland",
      yelpUrl: "",
      facebookPageId: "",
      facebookUrl: "",
      locale: "en-US",
      externalId: "",
      latitude: "43.6591",
      longitude: "-70.2568",
    });
    expect(added.text).toContain("The location “Harbour Street” is added.");
    const listed = (await rest().get("/v1/locations?limit=200")).body.data.find(
      (l: { name: string }) => l.name === "Harbour Street",
    );
    expect(listed).toMatchObject({
      addressLine1: "1 Harbour Street",
      addressLine2: null,
      city: "Portland",
      country: "US",
      timezone: "America/New_York",
      websiteUrl: "https://harbour.example",
      googlePlaceId: "ChIJharbour123",
      yelpBusinessId: "harbour-dental-portland",
      facebookPageId: null,
      latitude: 43.6591,
      longitude: -70.2568,
      isActive: true,
    });
    // the list: the row with where it is and which sites are set up
    expect(added.text).toMatch(/Harbour Street Portland, ME, US Google, Yelp America\/New_York Active/);
  });

  it("edits a location: blank clears, unticked Active retires it; its page shows the write-a-review links", async () => {
    const id = (await rest("manager").post("/v1/locations", { name: "Old Mill", yelpBusinessId: "old-mill" })).body.id;
    const page = await as("manager").get(t(`/locations/${id}`));
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="old-mill"');
    const saved = await submit(as("manager"), t(`/locations/${id}`), {
      name: "Old Mill Road",
      country: "GB",
      timezone: "Europe/London",
      googlePlaceId: "ChIJmill",
      yelpBusinessId: "",
    });
    expect(saved.text).toContain("“Old Mill Road” is saved, and inactive.");
    expect((await rest().get(`/v1/locations/${id}`)).body).toMatchObject({
      name: "Old Mill Road",
      country: "GB",
      timezone: "Europe/London",
      googlePlaceId: "ChIJmill",
      yelpBusinessId: null,
      isActive: false,
    });
    expect(saved.html).toContain('href="https://search.google.com/local/writereview?placeid=ChIJmill"');
    expect(saved.text).toContain("This location is inactive");
    expect(saved.text).toMatch(/Yelp not set up: add its id below/);
  });

  it("refusals are sentences naming the field; a viewer reads the details and is refused a change", async () => {
    const bad = await submit(as("manager"), t("/locations"), { name: "Bad site", websiteUrl: "not a url" });
    expect(bad.text).toMatch(/Please check the form: Website: /);
    const viewer = await as("viewer").get(t(`/locations/${locationA}`));
    expect(viewer.status).toBe(200);
    expect(viewer.text).toContain("<fieldset disabled");
    expect(viewer.text).not.toContain("Save the location");
    expect((await as("viewer").get(t("/locations"))).text).not.toContain("Add the location");
    const forged = await submit(as("viewer"), t(`/locations/${locationA}`), { name: "Renamed by a viewer" });
    expect(forged.text).toContain("Your role here (Viewer) does not allow this.");
    expect((await rest().get(`/v1/locations/${locationA}`)).body.name).toBe("Quay Street");
  });

  it("another tenant's location is 404, to read and to change", async () => {
    expect((await as("tenantAdmin").get(t(`/locations/${locationB}`))).status).toBe(404);
    const res = await as("tenantAdmin").post(t(`/locations/${locationB}`), { name: "" });
    expect(res.status).toBe(404);
    expect((await rest("tenantBAdmin").get(`/v1/locations/${locationB}`)).body.name).toBe("B's own place");
  });
});

describe("Review sites", () => {
  const SECRET = "ya29.console-secret-token-0123456789";

  it("connects Google with a write-only token: REST keeps it, no page shows it back", async () => {
    const made = await submit(as("tenantAdmin"), t("/integrations"), {
      connectorType: "google",
      name: "Google for Quay Street",
      locationId: locationA,
      "config.accountId": "111",
      "config.locationId": "222",
      "credentials.accessToken": SECRET,
    });
    expect(made.text).toContain("Google Business Profile is connected as “Google for Quay Street”.");
    expect(made.text).toMatch(/Google for Quay Street · Google Business Profile Quay Street Not synced yet/);
    const stored = (await rest().get("/v1/integrations")).body.data.find(
      (i: { name: string }) => i.name === "Google for Quay Street",
    );
    expect(stored).toMatchObject({ connectorType: "google", config: { accountId: "111", locationId: "222" } });
    expect(stored.hasCredentials).toBe(true);
    for (const path of ["/integrations", "/audit?action=integration.created"])
      expect((await as("tenantAdmin").get(t(path))).text, path).not.toContain(SECRET);
    // the update form fills the ids back, never the token
    expect(made.html).toContain('value="222"');
  });

  it("the service's refusals are sentences with the form's labels; a viewer gets the role's sentence", async () => {
    const missing = await submit(as("tenantAdmin"), t("/integrations"), {
      connectorType: "yelp",
      name: "Yelp",
      locationId: "",
      "config.businessId": "",
    });
    expect(missing.text).toContain("Please check the form: Location: Required for yelp");
    expect(missing.text).toContain("Yelp business id: Required for yelp");
    expect(missing.text).toContain("Yelp Fusion API key: Required for yelp");
    const viewer = await as("viewer").get(t("/integrations"));
    expect(viewer.status).toBe(200);
    expect(viewer.text).not.toContain("Connect Google");
    const forged = await submit(as("viewer"), t("/integrations"), { connectorType: "yelp", name: "x" });
    expect(forged.text).toContain("Your role here (Viewer) does not allow this.");
  });

  it("needsAttention in a sentence per reason; a new token clears it; test answers as a sentence; delete", async () => {
    const created = await rest().post("/v1/integrations", {
      connectorType: "google",
      name: "Sandbox Google",
      locationId: locationA,
      isSandbox: true,
      config: { accountId: "1", locationId: "2", apiBaseUrl: "http://stand-in.test" },
      credentials: { accessToken: "old-token" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const row = await shardOf(w.tenantA).select().from(integrations).where(eq(integrations.id, id)).get();
    await markNeedsAttention(
      shardOf(w.tenantA),
      row!,
      { code: "token_invalid", message: "Request had invalid authentication credentials." },
      "test",
    );
    const flagged = textOf((await as("tenantAdmin").get(t("/integrations"))).text);
    expect(flagged).toContain("One connection needs you");
    expect(flagged).toContain(
      "Needs you The site no longer accepts the stored token (it expired or was revoked). Paste a new one under “Update the connection”",
    );
    expect(flagged).toContain("The site said: Request had invalid authentication credentials.");

    // the site refuses the token: the test's answer is a sentence, not an error of the page
    answerFetch((url) =>
      url.host === "stand-in.test"
        ? json(
            {
              error: {
                code: 401,
                message: "Request had invalid authentication credentials.",
                status: "UNAUTHENTICATED",
              },
            },
            401,
          )
        : undefined,
    );
    const refused = await submit(as("tenantAdmin"), t(`/integrations/${id}/test`));
    expect(refused.text).toMatch(/Google Business Profile refused “Sandbox Google” \(HTTP 401\): .+ Paste a new token/);

    const saved = await submit(as("tenantAdmin"), t(`/integrations/${id}`), {
      name: "Sandbox Google",
      locationId: locationA,
      "config.accountId": "1",
      "config.locationId": "2",
      "credentials.accessToken": "new-token-9876",
      isEnabled: "true",
    });
    expect(saved.text).toContain("“Sandbox Google” is saved with the new credentials.");
    expect(saved.html).not.toContain("new-token-9876");
    const after = (await rest().get(`/v1/integrations/${id}`)).body;
    // the sandbox's base URL, which the form does not offer, is kept
    expect(after).toMatchObject({
      needsAttention: false,
      attention: null,
      config: { apiBaseUrl: "http://stand-in.test" },
    });

    answerFetch((url) => (url.host === "stand-in.test" ? json({ reviews: [], totalReviewCount: 0 }) : undefined));
    expect((await submit(as("tenantAdmin"), t(`/integrations/${id}/test`))).text).toContain(
      "Google Business Profile accepted “Sandbox Google”: the connection works.",
    );

    const gone = await submit(as("tenantAdmin"), t(`/integrations/${id}/delete`));
    expect(gone.text).toContain("“Sandbox Google” is deleted");
    expect((await rest().get(`/v1/integrations/${id}`)).status).toBe(404);
  });

  it("another tenant's connection is 404 for each form", async () => {
    const b = await rest("tenantBAdmin").post("/v1/integrations", {
      connectorType: "hubspot",
      name: "B's CRM",
      credentials: { accessToken: "b-token" },
    });
    for (const path of ["", "/test", "/delete"]) {
      const res = await as("tenantAdmin").post(t(`/integrations/${b.body.id}${path}`), { name: "x" });
      expect(res.status, path).toBe(404);
    }
    expect((await rest("tenantBAdmin").get(`/v1/integrations/${b.body.id}`)).body.name).toBe("B's CRM");
  });
});

describe("Email, SMS and WhatsApp", () => {
  const API_KEY = "SG.console-secret-api-key";

  it("sets up SendGrid with a write-only key; an empty key field keeps the stored one", async () => {
    expect(textOf((await as("viewer").get(t("/messaging"))).text)).toContain(
      "Not set up: Email review requests go out through the platform's sender",
    );
    const saved = await submit(as("tenantAdmin"), t("/messaging/email"), {
      provider: "sendgrid",
      fromAddress: "hello@harbour.example",
      fromName: "Harbour Dental",
      replyToAddress: "",
      senderDomain: "",
      "o.dkimSelectors": "",
      "sendgrid.s.apiKey": API_KEY,
      "ses.o.region": "us-east-1",
    });
    expect(saved.text).toContain("The Email set-up is saved.");
    expect(saved.text).toContain("Provider SendGrid Sends as Harbour Dental <hello@harbour.example>");
    expect(saved.text).toContain("Secrets stored API key");
    expect(saved.html).not.toContain(API_KEY);
    expect((await rest().get("/v1/settings/email")).body).toMatchObject({
      provider: "sendgrid",
      senderDomain: "harbour.example",
      credentialsSet: ["apiKey"],
      options: {},
    });
    await submit(as("tenantAdmin"), t("/messaging/email"), {
      provider: "sendgrid",
      fromAddress: "hello@harbour.example",
      fromName: "Harbour Dental Care",
      "sendgrid.s.apiKey": "",
    });
    expect((await rest().get("/v1/settings/email")).body).toMatchObject({
      fromName: "Harbour Dental Care",
      credentialsSet: ["apiKey"],
    });
    const viewer = await as("viewer").get(t("/messaging"));
    expect(viewer.text).not.toContain(API_KEY);
    expect((await as("tenantAdmin").get(t("/audit?action=settings.email.updated"))).text).not.toContain(API_KEY);
    expect(viewer.text).not.toContain("Save the Email set-up");
  });

  it("a missing field is a sentence with its label", async () => {
    const refused = await submit(as("tenantAdmin"), t("/messaging/sms"), {
      provider: "twilio",
      fromNumber: "+15551234567",
      "twilio.s.authToken": "tw-secret",
    });
    expect(refused.text).toContain("Please check the form: Account SID: Required for twilio");
    expect(refused.html).not.toContain("tw-secret");
    expect((await rest().get("/v1/settings/sms")).status).toBe(404);
  });

  it("checks the sender domain's DNS records and shows them", async () => {
    answerFetch((url) => {
      if (url.host !== "cloudflare-dns.com") return undefined;
      const name = url.searchParams.get("name");
      if (name === "s1._domainkey.harbour.example")
        return json({ Status: 0, Answer: [{ type: 16, data: '"v=DKIM1; k=rsa; p=MIGfMA0GCSq"' }] });
      return json({ Status: 3 });
    });
    const checked = await submit(as("tenantAdmin"), t("/messaging/email/verify-domain"));
    expect(checked.text).toContain("Checked harbour.example: DKIM found, DMARC not found.");
    expect(checked.text).toContain("DKIM: Found · DMARC: Not found");
    expect(checked.text).toContain("s1._domainkey.harbour.example (DKIM) Found v=DKIM1; k=rsa; p=MIGfMA0GCSq");
    expect(checked.text).toContain("_dmarc.harbour.example (DMARC) Not found nothing");
    expect(checked.text).toContain("v=DMARC1; p=none; rua=mailto:dmarc@harbour.example");
  });

  it("a test send's answer is a sentence: the provider's refusal, the dev mailbox; below manager refused", async () => {
    answerFetch((url) =>
      url.host === "api.sendgrid.com"
        ? json({ errors: [{ message: "The provided authorization grant is invalid, expired, or revoked" }] }, 401)
        : undefined,
    );
    const refused = await submit(as("manager"), t("/messaging/test"), { channel: "email", to: "Owner@Example.com" });
    expect(refused.text).toMatch(
      /SendGrid refused the test email to owner@example\.com: .*\(HTTP 401.*\)\. Fix the set-up above, then send another test\./,
    );
    const sms = await submit(as("manager"), t("/messaging/test"), { channel: "sms", to: "+15551234567" });
    expect(sms.text).toContain(
      "No SMS provider is set up, here or for the platform, so the test SMS message to +15551234567 went to the development mailbox only",
    );
    const user = await submit(as("tenantUser"), t("/messaging/test"), { channel: "sms", to: "+15551234567" });
    expect(user.text).toContain("Your role here (Team member) does not allow this.");
    expect(user.text).not.toContain("Send the test");
  });
});

describe("Review links and QR codes", () => {
  it("makes a link with shares, shows its opens and its QR code as PNG and SVG; retires and deletes it", async () => {
    const made = await submit(as("manager"), t("/review-links"), {
      locationId: locationA,
      name: "Front desk",
      "weights.google": "70",
      "weights.facebook": "30",
    });
    expect(made.text).toContain("“Front desk” is ready");
    const link = (await rest().get("/v1/review-links")).body.data.find(
      (l: { name: string }) => l.name === "Front desk",
    );
    expect(link).toMatchObject({ locationId: locationA, weights: { google: 70, facebook: 30 }, isActive: true });
    expect(made.text).toContain("Sends to Google 70%, Facebook 30%");
    expect(made.text).toContain(link.url);
    expect(made.text).toContain("Visits 0");
    const svg = `/l/${link.slug}/qr?format=svg`;
    expect(made.html).toContain(`src="${svg}"`);
    expect(made.html).toContain(`href="/l/${link.slug}/qr?format=png&amp;size=1024" download="Front-desk-qr.png"`);
    const png = await request("GET", `/l/${link.slug}/qr?format=png&size=128`, { unchecked: true });
    expect([png.status, png.headers.get("content-type")]).toEqual([200, "image/png"]);
    const vector = await request("GET", svg, { unchecked: true });
    expect([vector.status, vector.headers.get("content-type")]).toEqual([200, "image/svg+xml; charset=utf-8"]);

    // two opens, one from the printed code
    const at = new Date().toISOString();
    await shardOf(w.tenantA)
      .insert(reviewLinkClicks)
      .values([
        { id: newId(), tenantId: w.tenantA.id, reviewLinkId: link.id, site: "google", source: "qr", clickedAt: at },
        { id: newId(), tenantId: w.tenantA.id, reviewLinkId: link.id, site: "google", source: "link", clickedAt: at },
      ]);
    const opened = textOf((await as("viewer").get(t(`/review-links/${link.id}`))).text);
    expect(opened).toContain("Visits 2 From the link 1, QR code 1 Sent to Google 2");
    expect(opened).not.toContain("Save the link");

    const zero = await submit(as("manager"), t(`/review-links/${link.id}`), {
      name: "Front desk",
      "weights.google": "0",
      "weights.facebook": "0",
      isActive: "true",
    });
    expect(zero.text).toContain("Please check the form: weights: At least one site needs a weight above 0");
    const retired = await submit(as("manager"), t(`/review-links/${link.id}`), {
      name: "Front desk",
      "weights.google": "100",
      "weights.facebook": "0",
    });
    expect(retired.text).toContain("“Front desk” is saved and retired.");
    expect(retired.html).not.toContain(svg);
    expect((await rest().get(`/v1/review-links/${link.id}`)).body).toMatchObject({
      isActive: false,
      weights: { google: 100, facebook: 0 },
    });
    expect((await submit(as("manager"), t(`/review-links/${link.id}/delete`))).text).toContain(
      "“Front desk” is deleted",
    );
    expect((await rest().get(`/v1/review-links/${link.id}`)).status).toBe(404);
  });

  it("another tenant's link is 404; a team member is refused a new one", async () => {
    const b = await rest("tenantBAdmin").post("/v1/review-links", { locationId: locationB, weights: { google: 1 } });
    expect((await as("tenantAdmin").get(t(`/review-links/${b.body.id}`))).status).toBe(404);
    for (const path of ["", "/delete"])
      expect((await as("tenantAdmin").post(t(`/review-links/${b.body.id}${path}`), { name: "x" })).status).toBe(404);
    const refused = await submit(as("tenantUser"), t("/review-links"), {
      locationId: locationA,
      "weights.google": "1",
    });
    expect(refused.text).toContain("Your role here (Team member) does not allow this.");
  });
});

describe("Widgets", () => {
  it("makes a widget: its embed code to copy and a preview of our own widget page; pauses and deletes it", async () => {
    const made = await submit(as("manager"), t("/widgets"), {
      name: "Homepage reviews",
      locationId: locationA,
      minRating: "4",
      sites: ["google", "first_party"],
      count: "6",
      order: "best",
    });
    expect(made.text).toContain("“Homepage reviews” is made");
    const widget = (await rest().get("/v1/widgets")).body.data.find(
      (x: { name: string }) => x.name === "Homepage reviews",
    );
    expect(widget).toMatchObject({
      locationId: locationA,
      minRating: 4,
      sites: ["google", "first_party"],
      count: 6,
      order: "best",
    });
    expect(made.text).toContain(`Quay Street · 6 reviews · ${widget.footer}`);
    // the codes as a person reads them (textOf folds the line break between the script's two tags)
    expect(made.text).toContain(widget.embed.script.replace(/\s+/g, " "));
    expect(made.text).toContain(widget.embed.iframe);
    expect(made.html).toContain('data-copy="embed-script"');
    expect(made.html).toContain(`<iframe class="preview" src="/w/${widget.publicKey}"`);
    const page = await as("manager").get(t(`/widgets/${widget.id}`));
    expect(page.headers.get("content-security-policy")).toContain("frame-src 'self'");
    expect((await request("GET", `/w/${widget.publicKey}`, { unchecked: true })).status).toBe(200);

    const paused = await submit(as("manager"), t(`/widgets/${widget.id}`), {
      name: "Homepage reviews",
      locationId: "",
      minRating: "1",
      count: "5",
      order: "newest",
    });
    expect(paused.text).toContain("“Homepage reviews” is saved and paused.");
    expect(paused.html).not.toContain('<iframe class="preview"');
    expect((await rest().get(`/v1/widgets/${widget.id}`)).body).toMatchObject({
      isActive: false,
      locationId: null,
      sites: [],
    });
    expect((await submit(as("manager"), t(`/widgets/${widget.id}/delete`))).text).toContain("is deleted");
    expect((await rest().get(`/v1/widgets/${widget.id}`)).status).toBe(404);
  });

  it("another tenant's widget is 404", async () => {
    const b = await rest("tenantBAdmin").post("/v1/widgets", { name: "B's widget" });
    expect((await as("tenantAdmin").get(t(`/widgets/${b.body.id}`))).status).toBe(404);
    for (const path of ["", "/delete"])
      expect((await as("tenantAdmin").post(t(`/widgets/${b.body.id}${path}`), { name: "x" })).status).toBe(404);
  });
});

describe("Alerts", () => {
  it("a viewer sets up their own alert and sees what went out; a manager sees it, the viewer not the manager's", async () => {
    const made = await submit(as("viewer"), t("/alerts"), {
      locationId: locationA,
      instantEmail: "true",
      maxRating: "2",
      siteTypes: ["google"],
      keywords: "long wait, rude",
      digestFrequency: "weekly",
      digestHour: "9",
      digestWeekday: "5",
      timeZone: "",
    });
    expect(made.text).toContain(
      "The alert is set up. As reviews arrive: On: ratings 2★ or lower; Google; mentioning long wait, rude. Digest: Weekly on Fridays at 09:00 (UTC).",
    );
    const mine = (await rest("viewer").get("/v1/alert-subscriptions")).body.data;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      userId: w.users.viewer.id,
      locationId: locationA,
      maxRating: 2,
      siteTypes: ["google"],
      keywords: ["long wait", "rude"],
      digestFrequency: "weekly",
      digestHour: 9,
      digestWeekday: 5,
    });
    const managers = await rest("manager").post("/v1/alert-subscriptions", { instantEmail: true });
    expect(textOf((await as("viewer").get(t("/alerts"))).text)).toContain("Alerts (1)");
    expect((await as("viewer").get(t(`/alerts/${managers.body.id}`))).status).toBe(404);
    const seen = textOf((await as("manager").get(t("/alerts"))).text);
    expect(seen).toContain("Alerts (2)");
    expect(seen).toContain(`Test User (${w.users.viewer.email}) Quay Street On: ratings 2★ or lower`);

    // what went out: a sent instant alert about a review
    await shardOf(w.tenantA)
      .insert(alertSends)
      .values({
        id: newId(),
        tenantId: w.tenantA.id,
        subscriptionId: mine[0].id,
        key: "review:rv1",
        kind: "instant",
        status: "sent",
        summary: { reviewId: "rv1", email: true },
        createdAt: new Date().toISOString(),
        sentAt: new Date().toISOString(),
      });
    const page = await as("viewer").get(t(`/alerts/${mine[0].id}`));
    expect(textOf(page.text)).toMatch(/What went out \(latest 1 of 1\) .* A new review sent/);
    expect(page.text).toContain(`href="${t("/reviews/rv1")}"`);
  });

  it("refusals: nothing to deliver, and someone else's alert below manager", async () => {
    const id = (await rest("viewer").get("/v1/alert-subscriptions")).body.data[0].id;
    const nothing = await submit(as("viewer"), t(`/alerts/${id}`), { digestFrequency: "none", isActive: "true" });
    expect(nothing.text).toContain(
      "Please check the form: Email each new review: tick “Email each new review” or choose a digest.",
    );
    const forged = await submit(as("viewer"), t("/alerts"), { userId: w.users.manager.id, instantEmail: "true" });
    expect(forged.text).toContain("Your role here (Viewer) does not allow this.");
    const forOthers = await submit(as("manager"), t("/alerts"), {
      userId: w.users.tenantUser.id,
      instantEmail: "true",
      digestFrequency: "none",
    });
    expect(forOthers.text).toContain("The alert is set up.");
    expect((await rest("tenantUser").get("/v1/alert-subscriptions")).body.data).toHaveLength(1);
    const deleted = await submit(as("viewer"), t(`/alerts/${id}/delete`));
    expect(deleted.text).toContain("The alert is deleted");
    expect(
      await shardOf(w.tenantA)
        .select()
        .from(alertSends)
        .where(and(eq(alertSends.subscriptionId, id), eq(alertSends.tenantId, w.tenantA.id))),
    ).toEqual([]);
  });

  it("another tenant's alert is 404", async () => {
    const b = await rest("tenantBAdmin").post("/v1/alert-subscriptions", { instantEmail: true });
    expect((await as("tenantAdmin").get(t(`/alerts/${b.body.id}`))).status).toBe(404);
    for (const path of ["", "/delete"])
      expect((await as("tenantAdmin").post(t(`/alerts/${b.body.id}${path}`), { digestFrequency: "none" })).status).toBe(
        404,
      );
  });
});

it("the Settings page lists these pages under their headings", async () => {
  const text = textOf((await as("viewer").get(t("/settings"))).text);
  expect(text).toMatch(
    /Locations Locations .* Connections Review sites .* Email, SMS and WhatsApp .* Review links & widgets Review links and QR codes .* Widgets .* Alerts Alerts .* Account Team/,
  );
});
