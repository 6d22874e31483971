// The console's webhooks and automation rules over HTTP (#46 item 7): each form changes what its REST twin then
// reads; a new endpoint's signing secret is shown once and signs the deliveries; a test delivery and a delivery
// sent again show in the endpoint's log with their attempts; a rule made by the form runs on its event and its
// run shows with each action's outcome; refusals are sentences. Who sees which page: matrix.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setWebhookFetch } from "../../src/modules/outgoing-webhooks/transport";
import { endpoint, verifyStandardWebhook } from "../automation/helpers";
import { emailIdsTo, nextEmailTo } from "../helpers/dev-mailbox";
import { pollUntil } from "../helpers/poll";
import { createWorld, type World } from "../helpers/seed";
import { ingest, newLocation } from "../reviews/helpers";
import { browsersOf, textOf } from "./helpers";

let w: World;
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;
const HOOK = "https://hooks.example.com/console";

const signedIn = browsersOf(() => w.users);

const secretIn = (html: string) => /value="(whsec_[^"]+)"/.exec(html)?.[1];

beforeAll(async () => {
  w = await createWorld();
}, 60_000);
afterAll(() => setWebhookFetch());

describe("Webhooks", () => {
  let hookId: string;
  let secret: string;

  it("adds an endpoint: its secret shown once, in the answer to the post; the list shows it without the secret", async () => {
    const admin = await signedIn("tenantAdmin");
    const res = await admin.post(t("/webhooks"), {
      url: HOOK,
      description: "CRM",
      events: ["review.created", "review.negative"],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    secret = secretIn(res.text)!;
    expect(secret).toMatch(/^whsec_/);
    expect(textOf(res.text)).toContain(`The endpoint ${HOOK} is added.`);
    expect(textOf(res.text)).toContain("it is shown only this once");
    const rest = (await w.as("tenantAdmin").get("/v1/webhooks")).body.data;
    expect(rest).toMatchObject([
      { url: HOOK, description: "CRM", events: ["review.created", "review.negative"], isActive: true },
    ]);
    hookId = rest[0].id;
    const list = await admin.get(t("/webhooks"));
    expect(list.text).not.toContain(secret);
    expect(textOf(list.text)).toMatch(
      /Endpoints \(1\) .* https:\/\/hooks\.example\.com\/console CRM review\.created, review\.negative Active/,
    );
  });

  it("a test delivery: signed with the secret shown, its answer on the page and in the log with its attempts", async () => {
    const admin = await signedIn("tenantAdmin");
    const site = endpoint(() => new Response("pong", { status: 200 }));
    setWebhookFetch(site.fetch);
    const text = await admin.submit(t(`/webhooks/${hookId}/test`));
    expect(text).toMatch(/The test delivery arrived: the endpoint answered HTTP 200 in \d+ ms\./);
    expect(await verifyStandardWebhook(secret, site.calls[0]!.headers, site.calls[0]!.body)).toBe(true);
    expect(text).toMatch(/Deliveries \(1\), newest first .* webhook\.test Delivered 1 HTTP 200/);

    setWebhookFetch(endpoint(() => new Response("nope", { status: 500 })).fetch);
    const failed = await admin.submit(t(`/webhooks/${hookId}/test`));
    expect(failed).toContain("The test delivery failed: HTTP 500. It is not retried.");
    expect(failed).toMatch(/Deliveries \(2\)/);
    // the log's filter by status is GET .../deliveries?status=
    const onlyFailed = textOf((await admin.get(t(`/webhooks/${hookId}?status=failed`))).text);
    expect(onlyFailed).toMatch(/Deliveries \(1\), newest first .* webhook\.test Failed 1 HTTP 500/);
  });

  it("pauses by the edit form; sending a delivery again is refused while paused, then queued once resumed", async () => {
    const admin = await signedIn("tenantAdmin");
    setWebhookFetch(endpoint().fetch);
    const delivery = (await w.as("tenantAdmin").get(`/v1/webhooks/${hookId}/deliveries?status=failed`)).body.data[0];
    const paused = await admin.submit(t(`/webhooks/${hookId}/edit`), {
      url: HOOK,
      description: "CRM",
      events: ["review.created"],
    });
    expect(paused).toContain("The endpoint is saved and paused.");
    expect((await w.as("viewer").get(`/v1/webhooks/${hookId}`)).body).toMatchObject({
      isActive: false,
      events: ["review.created"],
    });
    const refused = await admin.submit(t(`/webhooks/${hookId}/deliveries/${delivery.id}/redeliver`));
    expect(refused).toContain(
      "This could not be done: The webhook subscription is disabled; enable it before redelivering.",
    );

    await admin.submit(t(`/webhooks/${hookId}/edit`), {
      url: HOOK,
      events: ["review.created"],
      isActive: "true",
    });
    const again = await admin.submit(t(`/webhooks/${hookId}/deliveries/${delivery.id}/redeliver`));
    expect(again).toContain("The delivery is queued again with the same webhook-id");
    const redelivered = await pollUntil(
      () => w.as("tenantAdmin").get(`/v1/webhooks/${hookId}/deliveries`),
      (r) =>
        r.body.data.some(
          (d: { redeliveryOf: string; status: string }) => d.redeliveryOf === delivery.id && d.status === "succeeded",
        ),
    );
    const row = redelivered.body.data.find((d: { redeliveryOf: string }) => d.redeliveryOf === delivery.id);
    expect(row).toMatchObject({ messageId: delivery.messageId, attempts: 1 });
    expect(textOf((await admin.get(t(`/webhooks/${hookId}`))).text)).toMatch(
      /webhook\.test \(sent again\) Delivered 1 HTTP 200/,
    );
  });

  it("replaces the secret: the new one is shown once and signs what follows", async () => {
    const admin = await signedIn("tenantAdmin");
    const res = await admin.post(t(`/webhooks/${hookId}/rotate-secret`));
    expect(res.status).toBe(200);
    const fresh = secretIn(res.text)!;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    const site = endpoint();
    setWebhookFetch(site.fetch);
    await admin.submit(t(`/webhooks/${hookId}/test`));
    const call = site.calls[0]!;
    expect(await verifyStandardWebhook(fresh, call.headers, call.body)).toBe(true);
    expect(await verifyStandardWebhook(secret, call.headers, call.body)).toBe(false);
    expect((await admin.get(t(`/webhooks/${hookId}`))).text).not.toContain(fresh);
  });

  it("refusals are sentences: a URL the SSRF guard refuses, a viewer's forged post", async () => {
    const admin = await signedIn("tenantAdmin");
    const bad = await admin.follow(
      await admin.post(t("/webhooks"), { url: "http://169.254.169.254/latest", events: ["review.created"] }),
    );
    expect(textOf(bad.text)).toMatch(/Please check the form: url: URL refused: /);
    const viewer = await signedIn("viewer");
    const read = await viewer.get(t(`/webhooks/${hookId}`));
    expect(read.status).toBe(200);
    expect(read.text).not.toContain("/rotate-secret");
    const forged = await viewer.follow(await viewer.post(t(`/webhooks/${hookId}/delete`)));
    expect(textOf(forged.text)).toContain("Your role here (Viewer) does not allow this.");
    expect((await w.as("viewer").get(`/v1/webhooks/${hookId}`)).status).toBe(200);
  });

  it("deletes the endpoint and its log", async () => {
    const admin = await signedIn("tenantAdmin");
    expect(await admin.submit(t(`/webhooks/${hookId}/delete`))).toContain(
      `The endpoint ${HOOK} and its log are deleted.`,
    );
    expect((await w.as("viewer").get(`/v1/webhooks/${hookId}`)).status).toBe(404);
    expect((await admin.get(t(`/webhooks/${hookId}`))).status).toBe(404);
  });
});

describe("Automation rules", () => {
  let ruleId: string;
  let locationId: string;

  it("a manager adds a rule in two steps: what it does, then when; REST reads what the form made", async () => {
    const manager = await signedIn("manager");
    const loc = await newLocation(w);
    locationId = loc.id;
    const first = await manager.get(t("/automation"));
    expect(textOf(first.text)).toContain("No rule yet. Add one below: first choose what it should do.");
    const form = await manager.get(t("/automation?action=notify_email"));
    expect(textOf(form.text)).toContain("Add a rule: Email people");
    expect(form.text).toContain(`<option value="${loc.id}">`);
    const res = await manager.post(t("/automation"), {
      action: "notify_email",
      name: "Low ratings to the owner",
      triggerEventType: "review.negative",
      locationId: loc.id,
      field: ["rating", "", ""],
      op: ["lt", "eq", "eq"],
      value: ["3", "", ""],
      to: "owner@example.test",
      toRole: "",
      subject: "{{data.rating}} stars at {{location.name}}",
      text: "Review {{data.reviewId}} needs a reply.",
    });
    expect(res.status).toBe(303);
    ruleId = /\/automation\/([a-z0-9]+)$/.exec(res.location!)![1]!;
    const page = textOf((await manager.follow(res)).text);
    expect(page).toContain("The rule “Low ratings to the owner” is active.");
    expect(page).toContain(
      "When review.negative Only if rating is less than 3 Then Email people: {{data.rating}} stars at {{location.name}} → owner@example.test",
    );
    expect((await w.as("viewer").get(`/v1/automation-rules/${ruleId}`)).body).toMatchObject({
      name: "Low ratings to the owner",
      triggerEventType: "review.negative",
      locationId: loc.id,
      isActive: true,
      conditions: [{ field: "rating", op: "lt", value: 3 }],
      actions: [
        {
          type: "notify_email",
          config: { to: ["owner@example.test"], subject: "{{data.rating}} stars at {{location.name}}" },
        },
      ],
    });
  });

  it("runs on its event: the mail goes out and the run shows with its action's outcome", async () => {
    const manager = await signedIn("manager");
    const seen = await emailIdsTo("owner@example.test");
    const review = await ingest(w, { locationId, siteType: "first_party", rating: 1, text: "Cold coffee" });
    const mail = await nextEmailTo("owner@example.test", seen, 15_000);
    expect(mail.text).toBe(`Review ${review.id} needs a reply.`);
    await pollUntil(
      () => w.as("viewer").get(`/v1/automation-rules/${ruleId}/runs`),
      (r) => r.body.data[0]?.outcome === "succeeded",
      15_000,
    );
    expect(textOf((await manager.get(t(`/automation/${ruleId}`))).text)).toMatch(
      /Recent runs \(1\), newest first .* review\.negative succeeded Email people: succeeded/,
    );
  });

  it("pauses and resumes; a team member reads the rule but cannot change it", async () => {
    const manager = await signedIn("manager");
    expect(await manager.submit(t(`/automation/${ruleId}/active`), { isActive: "false" })).toContain(
      "“Low ratings to the owner” is paused: it does nothing until resumed.",
    );
    expect((await w.as("viewer").get(`/v1/automation-rules/${ruleId}`)).body.isActive).toBe(false);
    expect(await manager.submit(t(`/automation/${ruleId}/active`), { isActive: "true" })).toContain("runs again.");
    const member = await signedIn("tenantUser");
    const read = await member.get(t(`/automation/${ruleId}`));
    expect(textOf(read.text)).toContain("Low ratings to the owner");
    expect(read.text).not.toContain("/active");
    const forged = await member.follow(await member.post(t(`/automation/${ruleId}/delete`)));
    expect(textOf(forged.text)).toContain("Your role here (Team member) does not allow this.");
  });

  it("a rule that calls a URL answers with its signing secret, once; a condition on an unknown field is a sentence", async () => {
    const manager = await signedIn("manager");
    const res = await manager.post(t("/automation"), {
      action: "send_webhook",
      name: "Reviews to the CRM",
      triggerEventType: "review.created",
      locationId: "",
      field: [""],
      op: ["eq"],
      value: [""],
      url: HOOK,
    });
    expect(res.status).toBe(200);
    expect(secretIn(res.text)).toMatch(/^whsec_/);
    expect(textOf(res.text)).toContain("Call a URL (a signed POST): https://hooks.example.com/console");
    const bad = await manager.follow(
      await manager.post(t("/automation"), {
        action: "add_tags",
        name: "Nope",
        triggerEventType: "review.created",
        field: ["stars"],
        op: ["lt"],
        value: ["3"],
        tags: "x",
      }),
    );
    expect(textOf(bad.text)).toContain(
      'Please check the form: conditions.0.field: review.created has no field "stars"',
    );
    const names = (await w.as("viewer").get("/v1/automation-rules")).body.data.map((r: { name: string }) => r.name);
    expect(names).not.toContain("Nope");
  });

  it("deletes a rule and its runs", async () => {
    const manager = await signedIn("manager");
    expect(await manager.submit(t(`/automation/${ruleId}/delete`))).toContain(
      "The rule “Low ratings to the owner” and its run log are deleted.",
    );
    expect((await w.as("viewer").get(`/v1/automation-rules/${ruleId}`)).status).toBe(404);
  });
});
