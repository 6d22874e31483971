// The console's review requests over HTTP (#46 item 1): templates written, previewed as typed, approved and
// versioned; a campaign made with its template, sent to every reachable contact and followed to the end with the
// figures the API reports (sent, delivered, refused, failed with its reason, outcome unknown); its sequence; an
// A/B experiment started and completed with its results; every request sent, filtered. Each form changes what its
// REST twin then reads, refusals are sentences, and another tenant's ids are 404. Who sees which page: matrix.test.ts.
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { solicitations } from "../../src/db/schema";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";
import { newContact, newLocation, noQuietHours } from "../solicitations/helpers";
import { browsersOf, type ConsoleBrowser, textOf } from "./helpers";

let w: World;
let location: { id: string; name: string };
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;

const signedIn = browsersOf(() => w.users);

/** The id in a redirect to one of the section's pages (`/templates/{id}`, `/campaigns/{id}`...). */
const idIn = (location: string | null, kind: string) => new RegExp(`/${kind}/([^/?#]+)`).exec(location ?? "")?.[1];

beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w);
  location = await newLocation(w, "manager", { name: "Harbour Quay" });
  // three customers who consented to email, one who did not (the policy refuses that one)
  for (const firstName of ["Ann", "Bo", "Cy"]) await newContact(w, { firstName });
  await newContact(w, { firstName: "Dee", consent: [] });
}, 60_000);

describe("the Requests section", () => {
  it("is in the navigation bar after Reviews, and its hub links campaigns, templates, experiments, sent requests", async () => {
    const viewer = await signedIn("viewer");
    const home = textOf((await viewer.get(t())).text);
    expect(home).toMatch(/Home Inbox Approvals Reviews Requests Contacts Settings/);
    const hub = await viewer.get(t("/requests"));
    expect(hub.status).toBe(200);
    expect(hub.text).toContain('aria-current="page">Requests</a>');
    for (const path of ["/campaigns", "/templates", "/experiments", "/solicitations"])
      expect(hub.text).toContain(`href="${t(path)}"`);
    expect(textOf(hub.text)).toContain("Campaigns are created and sent by a manager or an admin of this business.");
  });
});

describe("Templates", () => {
  let smsId: string;

  it("a new draft from the form, its page with the preview (sample customer, opt-out line, segments)", async () => {
    const user = await signedIn("tenantUser");
    const empty = textOf((await user.get(t("/templates"))).text);
    expect(empty).toContain("No template yet. Write the first one below");
    const res = await user.post(t("/templates"), {
      name: "Thank-you SMS",
      channel: "sms",
      bodyText: "Hi {{firstName}}, thanks for visiting {{locationName}}! Review us: {{reviewLink}}",
    });
    expect(res.status).toBe(303);
    smsId = idIn(res.location, "templates")!;
    const page = textOf((await user.follow(res)).text);
    expect(page).toContain("The draft “Thank-you SMS” is saved. Check its preview, then approve it.");
    expect(page).toMatch(/Status Draft · version 1/);
    expect(page).toContain(
      "Hi Jane, thanks for visiting Sample Location! Review us: http://localhost:8787/v1/r/preview?redirect=1 Reply STOP to opt out",
    );
    expect(page).toMatch(
      /124 characters with the opt-out line \(at most 1,600 to be approved\) · GSM-7 · 1 segment per customer/,
    );
    // the variables the template engine knows, each explained
    expect(page).toContain("{{reviewLink}} the link to leave a review");
    expect((await w.as("viewer").get(`/v1/templates/${smsId}`)).body).toMatchObject({
      name: "Thank-you SMS",
      channel: "sms",
      status: "draft",
      tokens: ["firstName", "locationName", "reviewLink"],
    });
  });

  it("an unknown variable is refused as a sentence, and nothing is made", async () => {
    const user = await signedIn("tenantUser");
    const text = await user.submit(t("/templates"), { name: "Promo", channel: "email", bodyText: "{{promo}}" });
    expect(text).toContain("Please check the form: bodyText: Unknown token {{promo}}.");
    expect((await w.as("viewer").get("/v1/templates?channel=email")).body.total).toBe(0);
  });

  it("the Preview button renders the fields as typed, unsaved; the live preview answers the same panel", async () => {
    const user = await signedIn("tenantUser");
    const fields = {
      name: "Thank-you SMS",
      bodyText: "Hello {{firstName}} 👋 {{reviewLink}}",
      previewLocationId: location.id,
    };
    const res = await user.post(t(`/templates/${smsId}/preview`), fields);
    expect(res.status).toBe(200);
    const page = textOf(res.text);
    expect(page).toContain("Hello Jane 👋 http://localhost:8787/v1/r/preview?redirect=1 Reply STOP to opt out");
    expect(page).toMatch(/UCS-2 \(a character outside GSM-7, such as an emoji\) · 2 segments per customer/);
    // the typed text stays in the field; the template itself is unchanged
    expect(res.text).toContain("Hello {{firstName}} 👋 {{reviewLink}}</textarea>");
    expect((await w.as("viewer").get(`/v1/templates/${smsId}`)).body.bodyText).toContain("thanks for visiting");
    // the location chosen gives its own name
    const named = await user.post(t(`/templates/${smsId}/preview`), { ...fields, bodyText: "At {{locationName}}" });
    expect(textOf(named.text)).toContain("At Harbour Quay Reply STOP to opt out");
    // what the client part asks for: the same panel as JSON, or the refusal as a sentence
    const asked = await fetchJson(user, t(`/templates/${smsId}/preview`), { bodyText: "Bye {{fullName}}" });
    expect(textOf(asked.html)).toContain("Bye Jane Doe Reply STOP to opt out");
    const refused = await fetchJson(user, t(`/templates/${smsId}/preview`), { bodyText: "{{coupon}}" });
    expect(textOf(refused.html)).toBe("Please check the form: bodyText: Unknown token {{coupon}}.");
  });

  it("approved by a manager; an edit is version 2, a draft, while version 1 stays in use; the versions listed", async () => {
    const user = await signedIn("tenantUser");
    expect(await user.submit(t(`/templates/${smsId}/approve`))).toContain(
      "Your role here (Team member) does not allow this.",
    );
    const manager = await signedIn("manager");
    expect(await manager.submit(t(`/templates/${smsId}/approve`))).toContain(
      "Version 1 is approved: campaigns using this template send it from now on.",
    );
    const res = await user.post(t(`/templates/${smsId}/edit`), {
      name: "Thank-you SMS",
      bodyText: "Hi {{firstName}}, how was {{locationName}}? {{reviewLink}}",
    });
    const v2 = idIn(res.location, "templates")!;
    expect(v2).not.toBe(smsId);
    const page = textOf((await user.follow(res)).text);
    expect(page).toContain("Version 2 is saved as a draft; version 1 stays in use until it is approved.");
    expect(page).toMatch(/Versions \(2\), newest first .* Version 2 \(this one\) Draft .* Version 1 Approved/);
    expect((await w.as("viewer").get(`/v1/templates?rootId=${smsId}`)).body.data).toMatchObject([
      { id: v2, version: 2, status: "draft" },
      { id: smsId, version: 1, status: "approved" },
    ]);
    // a second new version while one is open: the service's refusal
    expect(await user.submit(t(`/templates/${smsId}/version`))).toContain(
      "This could not be done: This template already has a draft version; edit or archive that draft first.",
    );
    expect(await manager.submit(t(`/templates/${v2}/archive`))).toContain("Version 2 of “Thank-you SMS” is archived.");
  });

  it("an SMS too long for the providers is refused at approval, as a sentence", async () => {
    const manager = await signedIn("manager");
    const res = await manager.post(t("/templates"), { name: "Long", channel: "sms", bodyText: "a".repeat(1600) });
    const text = await manager.submit(t(`/templates/${idIn(res.location, "templates")}/approve`));
    expect(text).toContain(
      "Please check the form: bodyText: An SMS is at most 1,600 characters with its opt-out line; this one is 1,622 (providers refuse longer messages).",
    );
  });

  it("a viewer reads the template and its preview but gets no editor", async () => {
    const viewer = await signedIn("viewer");
    const page = await viewer.get(t(`/templates/${smsId}`));
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('id="template-form"');
    expect(textOf(page.text)).toContain("Hi Jane, thanks for visiting Sample Location!");
  });
});

/** The console's preview as its client part asks for it (JSON), with the session's token. */
async function fetchJson(b: ConsoleBrowser, path: string, fields: Record<string, string>) {
  const answer = await b.post(path, fields, { accept: "application/json" });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text) as { html: string };
}

describe("Campaigns", () => {
  let emailTemplate: string;
  let campaignId: string;

  it("created with its channel, template, destination and dates; Yelp is refused as a sentence", async () => {
    const manager = await signedIn("manager");
    const made = await manager.post(t("/templates"), {
      name: "Thank-you email",
      channel: "email",
      subject: "How was {{locationName}}?",
      bodyText: "Hi {{firstName}}, tell us: {{reviewLink}}",
    });
    emailTemplate = idIn(made.location, "templates")!;
    await manager.submit(t(`/templates/${emailTemplate}/approve`));
    const form = await manager.get(t("/campaigns"));
    expect(textOf(form.text)).toContain("No campaign yet. Create one below");
    expect(textOf(form.text)).toContain("Thank-you email (v1, Approved)");
    const yelp = await manager.submit(t("/campaigns"), {
      name: "Spring",
      type: "one_time",
      channels: "email",
      reviewDestination: "yelp",
    });
    expect(yelp).toContain("Please check the form: reviewDestination: Yelp forbids asking customers for reviews");
    const res = await manager.post(t("/campaigns"), {
      name: "Spring",
      type: "one_time",
      channels: "email",
      template_email: emailTemplate,
      locationId: location.id,
      reviewDestination: "feedback",
      startsAt: "2026-12-01T09:00",
      endsAt: "2027-01-31T18:00",
    });
    expect(res.status).toBe(303);
    campaignId = idIn(res.location, "campaigns")!;
    const page = textOf((await manager.follow(res)).text);
    expect(page).toContain("The campaign “Spring” is created and active. Send it below when you are ready.");
    expect(page).toMatch(/Kind One send Channels Email Reviews go to Your feedback page/);
    expect(page).toMatch(/Email Thank-you email \(v1, Approved\)/);
    expect(page).toContain("Reachable now: 4 by Email");
    expect(page).toContain("Nothing sent yet.");
    const a = w.as("viewer");
    expect((await a.get(`/v1/campaigns/${campaignId}`)).body).toMatchObject({
      name: "Spring",
      type: "one_time",
      channels: ["email"],
      locationId: location.id,
      reviewDestination: "feedback",
      startsAt: "2026-12-01T09:00:00.000Z",
      endsAt: "2027-01-31T18:00:00.000Z",
      isActive: true,
    });
    expect((await a.get(`/v1/campaigns/${campaignId}/templates`)).body).toMatchObject([
      { templateId: emailTemplate, channel: "email" },
    ]);
  });

  it("sent to every reachable contact; its figures follow the send to the end; the same form again sends nobody twice", async () => {
    const manager = await signedIn("manager");
    const fields = {
      sendKey: "console-send-1",
      locationId: location.id,
      channel: "email",
      audience: "all",
      limit: "100",
    };
    const sent = await manager.submit(t(`/campaigns/${campaignId}/send`), fields);
    expect(sent).toContain("3 of 4 messages are queued; 1 refused by the sending policy. The progress shows below.");
    // the progress address the client part polls, until nothing waits and the analytics caught up
    const done = await pollUntil(
      () => manager.get(t(`/campaigns/${campaignId}/progress`)),
      (p) => {
        const body = JSON.parse(p.text) as { finished: boolean; html: string };
        return body.finished && textOf(body.html).includes("Sent 3");
      },
      20_000,
    );
    const figures = textOf((JSON.parse(done.text) as { html: string }).html);
    expect(figures).toContain(
      "Nothing is waiting: every message has gone to the providers or was refused by the sending policy.",
    );
    expect(figures).toMatch(
      /Requested 4 Waiting to be sent 0 Sent 3 \(75%\) Delivered 0 \(0%\) Clicked 0 \(0%\) Reviewed 0 \(0%\) Failed or bounced 0 Refused by the sending policy 1 Outcome unknown 0/,
    );
    // the same form posted again (a double click, a resubmitted page): its key makes it create nothing new
    expect(await manager.submit(t(`/campaigns/${campaignId}/send`), fields)).toContain("3 of 4 messages are queued");
    expect(await db().select().from(solicitations).where(eq(solicitations.campaignId, campaignId))).toHaveLength(4);
  });

  it("sent to the people of a CSV file: each row a contact, the unusable rows named", async () => {
    const manager = await signedIn("manager");
    const csv = "email,firstName\nera@example.com,Era\nnot-an-address,Fay\n";
    const text = await manager.submit(t(`/campaigns/${campaignId}/send`), {
      locationId: location.id,
      channel: "email",
      audience: "csv",
      contacts: new File([csv], "people.csv", { type: "text/csv" }),
    });
    expect(text).toMatch(
      /The file's 2 rows: 0 queued, 1 refused by the sending policy, 1 not usable \(row 1: Blocked by policy: NO_CONSENT; row 2: email: Invalid email address\)\./,
    );
    const made = (await w.as("viewer").get("/v1/contacts?search=era@example.com")).body.data;
    expect(made).toMatchObject([{ email: "era@example.com", firstName: "Era" }]);
    // without a file, the operation's own refusal
    const none = await manager.submit(t(`/campaigns/${campaignId}/send`), {
      locationId: location.id,
      channel: "email",
      audience: "csv",
    });
    expect(none).toMatch(/Please check the form: contacts: /);
  });

  it("a failure shows with its reason, an unknown outcome as such; a reload finds the figures", async () => {
    const rows = await db()
      .select()
      .from(solicitations)
      .where(and(eq(solicitations.campaignId, campaignId), eq(solicitations.status, "SENT")));
    // as the delivery would leave them: a provider's refusal, and a send whose answer was lost
    await db()
      .update(solicitations)
      .set({ status: "FAILED", failureReason: "sendgrid: 550 mailbox unavailable" })
      .where(eq(solicitations.id, rows[0]!.id));
    await db().update(solicitations).set({ deliveryOutcome: "unknown" }).where(eq(solicitations.id, rows[1]!.id));
    const today = new Date().toISOString().slice(0, 10);
    expect((await w.as("tenantAdmin").post("/v1/analytics/rebuild", { dateFrom: today, dateTo: today })).status).toBe(
      200,
    );
    const page = textOf((await (await signedIn("viewer")).get(t(`/campaigns/${campaignId}`))).text);
    expect(page).toMatch(/Failed or bounced 1 .* Outcome unknown 1/);
    expect(page).toMatch(/Failed \(1\), newest first .* Email .* sendgrid: 550 mailbox unavailable/);
    expect(page).toMatch(/Outcome unknown: the provider was called, its answer was lost; not sent again .* Email/);
  });

  it("its sequence saved, shown and deleted; a bad step is a sentence", async () => {
    const manager = await signedIn("manager");
    const rows = {
      stepIndex: ["", "", ""],
      stepChannel: ["email", "email", ""],
      stepTemplate: ["", emailTemplate, ""],
    };
    const bad = await manager.submit(t(`/campaigns/${campaignId}/sequence`), { ...rows, stepDelay: ["0", "400", ""] });
    expect(bad).toMatch(/Please check the form: steps\.1\.delayDays: .*365/);
    const saved = await manager.submit(t(`/campaigns/${campaignId}/sequence`), { ...rows, stepDelay: ["0", "3", ""] });
    expect(saved).toContain("The sequence is saved: 2 steps.");
    expect(saved).toMatch(
      /Spring sequence Step When Channel Message 1 the campaign's send Email the campaign's template 2 3 days after it Email Thank-you email/,
    );
    expect((await w.as("viewer").get(`/v1/campaigns/${campaignId}/sequence`)).body.steps).toMatchObject([
      { stepIndex: 0, channel: "email", delayDays: 0, templateId: null },
      { stepIndex: 1, channel: "email", delayDays: 3, templateId: emailTemplate },
    ]);
    expect(await manager.submit(t(`/campaigns/${campaignId}/sequence/delete`))).toContain("The sequence is deleted");
    expect((await w.as("viewer").get(`/v1/campaigns/${campaignId}/sequence`)).body).toBeNull();
  });

  it("deactivated, it offers no send, and a send is refused as a sentence", async () => {
    const manager = await signedIn("manager");
    expect(await manager.submit(t(`/campaigns/${campaignId}/active`), { isActive: "false" })).toContain(
      "“Spring” is inactive",
    );
    const refused = await manager.submit(t(`/campaigns/${campaignId}/send`), {
      locationId: location.id,
      channel: "email",
      audience: "all",
    });
    expect(refused).toContain(
      "This could not be done: The campaign is inactive; activate it before sending. Reload the page to see its current state.",
    );
    expect(refused).toContain("This campaign is inactive: activate it to send it.");
    expect(await manager.submit(t(`/campaigns/${campaignId}/active`), { isActive: "true" })).toContain(
      "“Spring” is active.",
    );
  });

  it("a team member reads the campaign but is refused a send, as a sentence", async () => {
    const user = await signedIn("tenantUser");
    const page = await user.get(t(`/campaigns/${campaignId}`));
    expect(page.text).not.toContain("Send now");
    expect(
      await user.submit(t(`/campaigns/${campaignId}/send`), { locationId: location.id, channel: "email" }),
    ).toContain("Your role here (Team member) does not allow this.");
  });

  it("every request sent, filtered: the one the policy refused says why", async () => {
    const viewer = await signedIn("viewer");
    const all = textOf((await viewer.get(t(`/solicitations?campaignId=${campaignId}`))).text);
    // the four of the send to every reachable contact, and the CSV's one the policy refused
    expect(all).toMatch(/Requests \(5\), newest first/);
    const refused = textOf((await viewer.get(t("/solicitations?status=BLOCKED"))).text);
    expect(refused).toMatch(
      /Requests \(2\), newest first .* Era, era@example.com Email Refused by the sending policy no consent for this channel Spring .* Dee Lee, .* no consent for this channel Spring/,
    );
    const failed = textOf((await viewer.get(t("/solicitations?status=FAILED"))).text);
    expect(failed).toContain("Failed sendgrid: 550 mailbox unavailable");
    const none = textOf((await viewer.get(t("/solicitations?channel=sms"))).text);
    expect(none).toContain("No request matches these filters.");
  });
});

describe("Experiments", () => {
  it("created, started, its results per variant, completed with a winner by an admin", async () => {
    const manager = await signedIn("manager");
    const campaign = (await w.as("viewer").get("/v1/campaigns")).body.data[0].id as string;
    const uneven = await manager.submit(t("/experiments"), {
      name: "Short or long",
      hypothesis: "Short wins",
      campaignId: campaign,
      variantName: ["Control", "Short", "", ""],
      variantTraffic: ["50", "40", "", ""],
      variantTemplate: ["", "", "", ""],
    });
    expect(uneven).toContain("Please check the form: variants: trafficPercent must add up to 100.");
    const res = await manager.post(t("/experiments"), {
      name: "Short or long",
      hypothesis: "Short wins",
      campaignId: campaign,
      variantName: ["Control", "Short", "", ""],
      variantTraffic: ["50", "50", "", ""],
      variantTemplate: ["", "", "", ""],
    });
    const id = idIn(res.location, "experiments")!;
    expect(textOf((await manager.follow(res)).text)).toContain("The experiment “Short or long” is a draft.");
    const started = await manager.submit(t(`/experiments/${id}/start`));
    expect(started).toContain("“Short or long” is running");
    expect(started).toMatch(
      /Results per variant .* Control \(50%\) · control 0 0 \(none yet\) 0 \(none yet\) 0 \(none yet\) this is the control Short \(50%\) 0 .* not enough sends to compare/,
    );
    expect(await manager.submit(t(`/experiments/${id}/complete`), { winnerVariantId: "" })).toContain(
      "Your role here (Manager) does not allow this.",
    );
    const short = (await w.as("viewer").get(`/v1/experiments/${id}`)).body.variants[1].id;
    const admin = await signedIn("tenantAdmin");
    expect(await admin.submit(t(`/experiments/${id}/complete`), { winnerVariantId: short })).toContain(
      "“Short or long” is completed: Short won.",
    );
    expect((await w.as("viewer").get(`/v1/experiments/${id}`)).body).toMatchObject({
      status: "completed",
      winnerVariantId: short,
    });
    expect(textOf((await manager.get(t("/experiments"))).text)).toMatch(
      /Short or long .* Control 50%, Short 50% Completed/,
    );
  });
});

describe("another tenant's ids", () => {
  it("are 404 under this tenant's address, pages and forms alike", async () => {
    const b = w.as("tenantBAdmin");
    const campaignB = (await b.post("/v1/campaigns", { name: "B", type: "one_time", channels: ["email"] })).body.id;
    const templateB = (await b.post("/v1/templates", { name: "B", channel: "sms", bodyText: "B" })).body.id;
    const experimentB = (
      await b.post("/v1/experiments", {
        name: "B",
        hypothesis: "B",
        variants: [
          { name: "A", trafficPercent: 50 },
          { name: "B", trafficPercent: 50 },
        ],
      })
    ).body.id;
    const admin = await signedIn("tenantAdmin");
    for (const path of [
      `/campaigns/${campaignB}`,
      `/campaigns/${campaignB}/progress`,
      `/templates/${templateB}`,
      `/experiments/${experimentB}`,
    ])
      expect((await admin.get(t(path))).status, path).toBe(404);
    for (const path of [
      `/campaigns/${campaignB}/send`,
      `/campaigns/${campaignB}/active`,
      `/campaigns/${campaignB}/sequence`,
      `/templates/${templateB}/edit`,
      `/templates/${templateB}/preview`,
      `/templates/${templateB}/approve`,
      `/experiments/${experimentB}/start`,
    ])
      expect(
        (await admin.post(t(path), { locationId: location.id, channel: "email", name: "x", isActive: "false" })).status,
        path,
      ).toBe(404);
    expect((await b.get(`/v1/campaigns/${campaignB}`)).body.isActive).toBe(true);
    expect((await b.get(`/v1/templates/${templateB}`)).body.status).toBe("draft");
  });
});
