// The console's contacts pages over HTTP (#46 item 2): the list with GET /v1/contacts's search, filters and keyset
// pages; a contact's page (details, consent per channel and whether a request may go, the message history with
// times and reasons) and its forms (consent, opt-out, suppress, lift, erase after "I understand"), each read back
// over REST; the CSV import as a job (upload, its page and status address until done, the refused rows and their
// CSV); the compliance view (the rules, changed by an admin, the policy's refusals with their reasons). Refusals
// arrive as sentences; another tenant's contact and import job are 404. Who sees which page: matrix.test.ts.
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { solicitations } from "../../src/db/schema";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";
import { newContact, newLocation, noQuietHours, solicit, waitForStatus } from "../solicitations/helpers";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
const browsers = new Map<string, ConsoleBrowser>();
const as = (who: keyof World["users"]) => browsers.get(who)!;
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;
/** Ann: an email consent, two requests sent (one later failed) and one refused; tenant B's own contact */
let ann: { id: string; email: string | null };
let contactB: string;
let failed: string;

/** Posts a form and lands where it redirects; the landed page's text. */
async function submit(b: ConsoleBrowser, path: string, fields: Record<string, string | string[]> = {}) {
  const res = await b.post(path, fields);
  expect(res.status, `${path}: ${textOf(res.text).slice(0, 300)}`).toBe(303);
  const landed = await b.follow(res);
  expect(landed.status).toBe(200);
  return textOf(landed.text);
}

const csvFile = (text: string, name = "people.csv") => new File([text], name, { type: "text/csv" });

beforeAll(async () => {
  w = await createWorld();
  for (const who of ["tenantAdmin", "manager", "tenantUser", "viewer", "tenantBAdmin"] as const) {
    const b = new ConsoleBrowser();
    expect((await b.seededSession(w.users[who].id)).status).toBe(200);
    browsers.set(who, b);
  }
  await noQuietHours(w);
  const location = (await newLocation(w)).id;
  ann = await newContact(w, { email: "ann.lee@contacts.test", firstName: "Ann", consent: ["email"] });
  const send = async (channel: string) => (await solicit(w, { locationId: location, contactId: ann.id, channel })).body;
  const sent = await send("email");
  await waitForStatus(sent.id, "SENT");
  const second = await send("email");
  await waitForStatus(second.id, "SENT");
  failed = second.id;
  // what a provider's refusal leaves (solicitations/delivery.ts): FAILED with the provider's words
  await db()
    .update(solicitations)
    .set({ status: "FAILED", failureReason: "550 mailbox unavailable" })
    .where(eq(solicitations.id, failed));
  // Ann has no phone: the policy refuses an SMS (MISSING_ADDRESS)
  expect((await send("sms")).status).toBe("BLOCKED");
  contactB = (await newContact(w, { as: "tenantBAdmin", email: "b.only@contacts.test" })).id;
}, 60_000);

describe("Contacts", () => {
  it("lists contacts with their state and consent; search and filters narrow it; keyset pages of 50", async () => {
    const rows = Array.from({ length: 53 }, (_, i) => `page-${String(i).padStart(2, "0")}@list.test,Page,${i}`);
    const imported = await w.as("tenantUser").post(
      "/v1/contacts/import/csv",
      (() => {
        const f = new FormData();
        f.append("file", csvFile(["email,first_name,last_name", ...rows].join("\n")));
        return f;
      })(),
    );
    expect(imported.body.imported).toBe(53);
    const emails = (html: string) => [...html.matchAll(/page-\d\d@list\.test/g)].map((m) => m[0]);
    const first = await as("viewer").get(t("/contacts?search=page-"));
    const text = textOf(first.text);
    expect(text).toContain("Contacts found (53), newest first");
    expect(text).toMatch(/Page \d+ page-\d\d@list\.test none Active none recorded/);
    const next = /href="([^"]*cursor=[^"]*)"/.exec(first.text)![1]!.replace(/&amp;/g, "&");
    expect(next).toContain("search=page-");
    const second = await as("viewer").get(next);
    expect(textOf(second.text)).not.toContain("Next page");
    // 50, then the other 3 (one import: one createdAt, the id breaks the tie)
    expect([emails(first.text).length, emails(second.text).length]).toEqual([50, 3]);
    expect(new Set([...emails(first.text), ...emails(second.text)])).toEqual(new Set(rows.map((r) => r.split(",")[0])));
    // Ann: her email consent in the list; the filters as GET /v1/contacts reads them
    expect(textOf((await as("viewer").get(t("/contacts?search=ann"))).text)).toContain(
      "Ann Lee ann.lee@contacts.test none Active Email granted",
    );
    const noPhone = textOf((await as("viewer").get(t("/contacts?hasPhone=true&search=page-"))).text);
    expect(noPhone).toContain("No contact matches");
    // a value REST refuses is REST's 400, as a page
    const bad = await as("viewer").get(t("/contacts?isSuppressed=maybe"));
    expect(bad.status).toBe(400);
    expect(textOf(bad.text)).toContain("Please check the form: isSuppressed");
  });

  it("adds a contact as REST then reads it; without an email or phone it is a sentence", async () => {
    const added = await submit(as("tenantUser"), t("/contacts"), {
      email: "Zed@Contacts.Test",
      phone: "(212) 555-0100",
      firstName: "Zed",
      lastName: "Ray",
    });
    expect(added).toContain("Zed Ray is saved.");
    const list = await w.as("viewer").get("/v1/contacts?search=zed");
    expect(list.body.data).toMatchObject([
      { email: "zed@contacts.test", phone: "+12125550100", firstName: "Zed", lastName: "Ray" },
    ]);
    const refused = await submit(as("tenantUser"), t("/contacts"), { email: "", phone: "", firstName: "No" });
    expect(refused).toContain("Please check the form: Email: an email or a phone number is needed.");
    // a viewer: no form, and a forged post gets REST's refusal
    expect(textOf((await as("viewer").get(t("/contacts"))).text)).not.toContain("Add a contact");
    expect(await submit(as("viewer"), t("/contacts"), { email: "v@contacts.test" })).toContain(
      "Your role here (Viewer) does not allow this.",
    );
  });
});

describe("A contact's page", () => {
  it("shows the details, consent per channel with whether a request may go, and the messages with times and reasons", async () => {
    const page = await as("viewer").get(t(`/contacts/${ann.id}`));
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain("Email ann.lee@contacts.test Phone none Name Ann Lee");
    expect(text).toMatch(/Email Granted \w+ \d+, \d{4}, .* \(test\) Yes/);
    expect(text).toContain("SMS none recorded No The contact has no phone number for SMS.");
    expect(text).toContain("WhatsApp none recorded No The contact has no phone number for WhatsApp.");
    expect(text).toContain("Review requests (3), newest first");
    expect(text).toContain("SMS Not sent: refused by your rules nothing yet The contact has no phone number for SMS.");
    expect(text).toMatch(/Email Failed Sent \w+ \d+, \d{4}, .*? 550 mailbox unavailable/);
    expect(text).toMatch(/Email Sent Sent \w+ \d+, \d{4}/);
    // a viewer reads; the forms are for team members, erasing for admins
    expect(page.text).not.toContain("Record an opt-out");
    expect(text).toContain("An admin of this business erases a contact.");
  });

  it("records a consent and an opt-out as REST reads them; a blank 'how' is a sentence", async () => {
    const b = as("tenantUser");
    const c = await newContact(w, { email: "cal@contacts.test", firstName: "Cal", consent: [] });
    const path = t(`/contacts/${c.id}`);
    expect(await submit(b, `${path}/consent`, { channel: "email", source: "" })).toContain(
      "Please check the form: How they agreed:",
    );
    const granted = await submit(b, `${path}/consent`, { channel: "sms", source: "signed the intake form" });
    expect(granted).toContain("SMS consent is recorded.");
    // Cal has no phone: the SMS consent is there, and the policy still says why not
    expect(granted).toMatch(/SMS Granted .* \(signed the intake form\) No The contact has no phone number for SMS\./);
    const revoked = await submit(b, `${path}/consent/email/revoke`);
    expect(revoked).toContain("The opt-out from Email is recorded");
    expect(revoked).toMatch(/Email Opted out .* \(api\) No No consent for Email/);
    const history = await w.as("viewer").get(`/v1/contacts/${c.id}/consent`);
    expect(
      history.body.map((r: { channel: string; status: string; source: string }) => [r.channel, r.status, r.source]),
    ).toEqual([
      ["sms", "granted", "signed the intake form"],
      ["email", "revoked", "api"],
    ]);
    expect(await submit(b, `${path}/consent/fax/revoke`)).toContain("Please check the form: channel:");
  });

  it("suppresses with a reason and lifts it, as REST reads it; suppressing twice is a sentence", async () => {
    const b = as("tenantUser");
    const c = await newContact(w, { email: "sam@contacts.test", firstName: "Sam" });
    const path = t(`/contacts/${c.id}`);
    const done = await submit(b, `${path}/suppress`, { reason: "asked by phone" });
    expect(done).toContain("Sam Lee is suppressed: no review request goes to them now.");
    expect(done).toMatch(/Suppressed since .*: asked by phone\. No review request goes to them/);
    expect(done).toContain("Email Granted");
    expect(done).toContain("No The contact is suppressed");
    expect((await w.as("viewer").get(`/v1/contacts/${c.id}`)).body).toMatchObject({
      isSuppressed: true,
      suppressionReason: "asked by phone",
    });
    expect(await submit(b, `${path}/suppress`, { reason: "" })).toContain(
      "This could not be done: Contact cannot move from suppressed to suppressed.",
    );
    expect(await submit(b, `${path}/unsuppress`)).toContain("Sam Lee is no longer suppressed");
    expect((await w.as("viewer").get(`/v1/contacts/${c.id}`)).body.isSuppressed).toBe(false);
  });

  it("erases only with 'I understand' ticked, as an admin; switched off in the compliance settings it says so", async () => {
    const c = await newContact(w, { email: "eve@contacts.test", firstName: "Eve" });
    const path = t(`/contacts/${c.id}`);
    expect(await submit(as("manager"), `${path}/erase`, { understand: "yes" })).toContain(
      "Your role here (Manager) does not allow this.",
    );
    const admin = as("tenantAdmin");
    expect(await submit(admin, `${path}/erase`, {})).toContain("Nothing was erased: tick “I understand”");
    expect((await w.as("viewer").get(`/v1/contacts/${c.id}`)).body.email).toBe("eve@contacts.test");
    // allowDataDeletion off: the page offers no form, and a post gets the service's refusal as a sentence
    expect((await w.as("tenantAdmin").put("/v1/compliance", { allowDataDeletion: false })).status).toBe(200);
    const off = await admin.get(path);
    expect(textOf(off.text)).toContain("Erasing is switched off in this business's compliance settings");
    expect(await submit(admin, `${path}/erase`, { understand: "yes" })).toContain(
      "Erasing contacts is switched off in this business's compliance settings (allow data deletion); an admin turns it on there.",
    );
    expect((await w.as("tenantAdmin").put("/v1/compliance", { allowDataDeletion: true })).status).toBe(200);
    const erased = await submit(admin, `${path}/erase`, { understand: "yes" });
    expect(erased).toContain("Their personal data is erased, and they stay suppressed.");
    expect(erased).toContain("Erased contact Erased");
    expect(erased).not.toContain("eve@contacts.test");
    expect((await w.as("viewer").get(`/v1/contacts/${c.id}`)).body).toMatchObject({
      email: null,
      firstName: null,
      isSuppressed: true,
      suppressionReason: "erased",
    });
  });
});

describe("Import contacts from a CSV file", () => {
  it("uploads the file, follows the job to the end on its page and status address, and lists the refused rows", async () => {
    const b = as("tenantUser");
    const form = await b.get(t("/contacts/import"));
    expect(textOf(form.text)).toContain("CSV file");
    const csv = [
      "Email,First Name,phone",
      "ivy@import.test,Ivy,",
      "not-an-email,Bad,",
      "jon@import.test,Jon,+442079460000",
      ",Nobody,",
      "kim@import.test,Kim,",
    ].join("\n");
    const res = await b.upload(t("/contacts/import"), { file: csvFile(csv, "spring.csv") });
    expect(res.status, textOf(res.text).slice(0, 300)).toBe(303);
    const jobPath = new URL(res.location!, "http://x").pathname;
    expect(jobPath).toMatch(new RegExp(`^${t("/contacts/import/")}job_`));
    const started = textOf((await b.follow(res)).text);
    expect(started).toContain("The import of spring.csv has started.");
    expect(started).toContain("Rows in the file 5");
    const status = await pollUntil(
      async () => JSON.parse((await b.get(`${jobPath}/status`)).text),
      (s) => s.status === "succeeded",
      20_000,
    );
    expect(status).toEqual({
      status: "succeeded",
      total: 5,
      done: 5,
      imported: 3,
      skipped: 2,
      error: null,
      errors: [
        { row: 2, reason: "email: Invalid email address" },
        { row: 4, reason: "email: email or phone is required" },
      ],
      errorsCsv: `${jobPath}/errors`,
    });
    // the page after a reload: done, with the refused rows by row number
    const page = textOf((await as("viewer").get(jobPath)).text);
    expect(page).toContain("Done: 3 imported, 2 rows refused.");
    expect(page).toContain("Imported: 3 · Refused: 2");
    expect(page).toContain("Row Why 2 email: Invalid email address 4 email: email or phone is required");
    const errors = await as("viewer").get(`${jobPath}/errors`);
    expect(errors.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(errors.text).toBe("row,reason\r\n2,email: Invalid email address\r\n4,email: email or phone is required\r\n");
    const jon = await w.as("viewer").get("/v1/contacts?search=jon@import");
    expect(jon.body.data).toMatchObject([{ email: "jon@import.test", firstName: "Jon", phone: "+442079460000" }]);
  });

  it("refuses a file without an email or phone column, over 5,000 rows or none at all, as sentences; a viewer has no form", async () => {
    const b = as("tenantUser");
    const back = async (res: Awaited<ReturnType<ConsoleBrowser["upload"]>>) => {
      expect(res.status).toBe(303);
      expect(res.location).toBe(t("/contacts/import"));
      return textOf((await b.follow(res)).text);
    };
    expect(await back(await b.upload(t("/contacts/import"), { file: csvFile("name,city\nAnn,Paris\n") }))).toContain(
      "Please check the form: CSV file: The CSV header needs an email or a phone column.",
    );
    const many = ["email", ...Array.from({ length: 5001 }, (_, i) => `m${i}@x.test`)].join("\n");
    expect(await back(await b.upload(t("/contacts/import"), { file: csvFile(many) }))).toContain(
      "CSV import is limited to 5,000 rows; nothing was imported",
    );
    expect(await back(await b.upload(t("/contacts/import"), {}))).toContain(
      "Please check the form: CSV file: choose a file.",
    );
    const big = await b.upload(t("/contacts/import"), { file: csvFile(`email\n${"x".repeat(1_100_000)}\n`) });
    expect(await back(big)).toContain("The file is larger than 1 MB, so nothing was imported.");
    const viewer = textOf((await as("viewer").get(t("/contacts/import"))).text);
    expect(viewer).toContain("Your role here (Viewer) reads contacts; a team member or a manager imports them.");
    expect(
      await as("viewer")
        .get(t("/contacts/import"))
        .then((p) => p.text),
    ).not.toContain('type="file"');
  });
});

describe("Compliance", () => {
  it("shows the rules; an admin changes them as REST reads them; a bad value is a sentence; below admin a refusal", async () => {
    const before = textOf((await as("viewer").get(t("/compliance"))).text);
    expect(before).toContain("Quiet hours None: requests may go out at any hour.");
    expect(before).toContain("Per day At most 3 per person in 24 hours.");
    expect(before).toContain("An admin of this business changes these.");
    const fields = {
      quietHoursStart: "20:30",
      quietHoursEnd: "09:00",
      frequencyCapDaily: "2",
      frequencyCapWeekly: "4",
      requireSmsOptIn: "true",
      retentionDays: "365",
      allowDataExport: "true",
      allowDataDeletion: "true",
    };
    const saved = await submit(as("tenantAdmin"), t("/compliance"), fields);
    expect(saved).toContain("The rules are saved.");
    expect(saved).toContain("Quiet hours From 20:30 to 09:00 in the contact's time zone");
    expect(saved).toContain("Email To every contact with an email address who has not opted out.");
    const rest = (await w.as("viewer").get("/v1/compliance")).body;
    expect(rest).toEqual({
      ...fields,
      frequencyCapDaily: 2,
      frequencyCapWeekly: 4,
      retentionDays: 365,
      requireEmailConsent: false,
      requireSmsOptIn: true,
      requireDoubleOptIn: false,
      healthcareSafeMode: false,
      allowDataExport: true,
      allowDataDeletion: true,
    });
    expect(await submit(as("tenantAdmin"), t("/compliance"), { ...fields, retentionDays: "30" })).toContain(
      "Please check the form: Keep a contact's data for (days):",
    );
    expect(await submit(as("manager"), t("/compliance"), fields)).toContain(
      "Your role here (Manager) does not allow this.",
    );
    await noQuietHours(w, "tenantAdmin", { requireEmailConsent: true, frequencyCapDaily: 3, frequencyCapWeekly: 5 });
  });

  it("lists the policy's recent refusals with a count and a sentence per reason, filtered", async () => {
    const page = textOf((await as("viewer").get(t("/compliance"))).text);
    expect(page).toContain("Refusals per reason Reason Requests No address for the channel 1");
    expect(page).toMatch(
      /Refused requests \(1\), newest first .* Ann Lee SMS The contact has no phone number for SMS\./,
    );
    const none = textOf((await as("viewer").get(t("/compliance?blockedReason=QUIET_HOURS"))).text);
    expect(none).toContain("None under these filters.");
    expect((await as("viewer").get(t("/compliance?blockedReason=LATE"))).status).toBe(400);
  });
});

it("another tenant's contact and import job are 404, on pages and forms, and nothing changes", async () => {
  const jobB = await w.as("tenantBAdmin").post(
    "/v1/contacts/import-jobs",
    (() => {
      const f = new FormData();
      f.append("file", csvFile("email\nb2@contacts.test\n"));
      return f;
    })(),
  );
  expect(jobB.status).toBe(202);
  const admin = as("tenantAdmin");
  for (const path of [
    t(`/contacts/${contactB}`),
    t(`/contacts/import/${jobB.body.id}`),
    t(`/contacts/import/${jobB.body.id}/status`),
    t(`/contacts/import/${jobB.body.id}/errors`),
  ]) {
    const page = await admin.get(path);
    expect(page.status, path).toBe(404);
    expect(page.text).not.toContain("b.only@contacts.test");
  }
  for (const [path, fields] of [
    ["suppress", { reason: "x" }],
    ["unsuppress", {}],
    ["consent", { channel: "email", source: "x" }],
    ["consent/email/revoke", {}],
    ["erase", { understand: "yes" }],
  ] as const)
    expect((await admin.post(t(`/contacts/${contactB}/${path}`), fields)).status, path).toBe(404);
  expect((await w.as("tenantBAdmin").get(`/v1/contacts/${contactB}`)).body).toMatchObject({
    email: "b.only@contacts.test",
    isSuppressed: false,
  });
});
