import { beforeAll, describe, expect, it } from "vitest";
import { findApprovedVersion } from "../../src/modules/templates/service";
import { auditOf, tenantCtx } from "../campaigns/support";
import { createWorld, type World } from "../helpers/seed";

let w: World;
let bTemplateId: string;

const email = {
  name: "Review request",
  channel: "email",
  subject: "How was {{locationName}}, {{firstName}}?",
  bodyHtml: '<p>Hi {{firstName}}, <a href="{{reviewLink}}">review</a></p>',
  bodyText: "Hi {{firstName}}: {{reviewLink}}",
};
const sms = { name: "SMS ask", channel: "sms", bodyText: "Hi {{firstName}}, review {{locationName}}: {{reviewLink}}" };

beforeAll(async () => {
  w = await createWorld();
  bTemplateId = (await w.as("tenantBAdmin").post("/v1/templates", email)).body.id;
});

describe("create, read, list", () => {
  it("creates a draft version 1 with the tokens it found", async () => {
    const res = await w.as("tenantUser").post("/v1/templates", email);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      name: "Review request",
      channel: "email",
      status: "draft",
      version: 1,
      locale: "en-US",
      subject: email.subject,
      bodyHtml: email.bodyHtml,
      bodyText: email.bodyText,
      tokens: ["locationName", "firstName", "reviewLink"],
      createdByUserId: w.users.tenantUser.id,
      approvedByUserId: null,
      approvedAt: null,
      rootId: res.body.id,
    });
    const got = await w.as("viewer").get(`/v1/templates/${res.body.id}`);
    expect(got.body).toEqual(res.body);
    const audit = await auditOf(res.body.id, "template.created");
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      tenantId: w.tenantA.id,
      actorId: w.users.tenantUser.id,
      resourceType: "template",
    });
  });

  it("validates the body", async () => {
    const res = await w.as("manager").post("/v1/templates", { name: "", channel: "fax" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["channel", "name"]);
  });

  it("refuses unknown and malformed tokens with 400 naming the field", async () => {
    const res = await w
      .as("manager")
      .post("/v1/templates", { ...email, subject: "{{nope}}", bodyText: "{{first name}}" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([
      { path: "subject", message: "Unknown token {{nope}}" },
      { path: "bodyText", message: "Unknown token {{first name}}" },
    ]);
  });

  it("accepts a location variable as a token", async () => {
    const loc = (await w.as("manager").post("/v1/locations", { name: "Uptown" })).body.id;
    await w.as("manager").put(`/v1/locations/${loc}/variables`, { variables: { parkingInfo: "Lot B" } });
    const res = await w.as("manager").post("/v1/templates", { ...sms, bodyText: "Parking: {{parkingInfo}}" });
    expect(res.status).toBe(201);
    expect(res.body.tokens).toEqual(["parkingInfo"]);
  });

  it("a viewer cannot create", async () => {
    expect((await w.as("viewer").post("/v1/templates", email)).status).toBe(403);
  });

  it("lists newest first, filtered by channel and status", async () => {
    const res = await w.as("viewer").get("/v1/templates?channel=sms&limit=1");
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ channel: "sms", tenantId: w.tenantA.id });
    expect(res.body.total).toBeGreaterThanOrEqual(1);
    const all = await w.as("viewer").get("/v1/templates?status=draft&limit=200");
    expect(
      all.body.data.every(
        (t: { status: string; tenantId: string }) => t.status === "draft" && t.tenantId === w.tenantA.id,
      ),
    ).toBe(true);
    expect(all.body.data.map((t: { id: string }) => t.id)).not.toContain(bTemplateId);
    expect((await w.as("viewer").get("/v1/templates?status=live")).status).toBe(400);
  });
});

describe("versions and approval", () => {
  let v1: string;
  let v2: string;

  it("edits a draft in place and recomputes its tokens", async () => {
    v1 = (await w.as("manager").post("/v1/templates", email)).body.id;
    const res = await w
      .as("tenantUser")
      .patch(`/v1/templates/${v1}`, { subject: "Thanks {{fullName}}", bodyText: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: v1,
      version: 1,
      status: "draft",
      subject: "Thanks {{fullName}}",
      bodyText: null,
      tokens: ["fullName", "firstName", "reviewLink"],
    });
    expect((await auditOf(v1, "template.updated"))[0]).toMatchObject({
      previousState: expect.objectContaining({ subject: email.subject }),
    });
  });

  it("approval needs manager or tenant_admin", async () => {
    const res = await w.as("tenantUser").post(`/v1/templates/${v1}/approve`);
    expect(res.status).toBe(403);
  });

  it("approves a draft, and approving twice is 409 INVALID_TRANSITION", async () => {
    const res = await w.as("manager").post(`/v1/templates/${v1}/approve`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: v1, status: "approved", approvedByUserId: w.users.manager.id });
    expect(Date.parse(res.body.approvedAt)).not.toBeNaN();
    const again = await w.as("manager").post(`/v1/templates/${v1}/approve`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "approved", to: "approved" } });
    expect(await auditOf(v1, "template.approved")).toHaveLength(1);
  });

  it("PATCH of an approved template creates version 2 as a draft; version 1 stays approved", async () => {
    const res = await w.as("tenantUser").patch(`/v1/templates/${v1}`, { bodyHtml: "<p>New {{firstName}}</p>" });
    expect(res.status).toBe(200);
    v2 = res.body.id;
    expect(v2).not.toBe(v1);
    expect(res.body).toMatchObject({
      rootId: v1,
      version: 2,
      status: "draft",
      subject: "Thanks {{fullName}}",
      bodyHtml: "<p>New {{firstName}}</p>",
      approvedAt: null,
      createdByUserId: w.users.tenantUser.id,
    });
    expect((await w.as("viewer").get(`/v1/templates/${v1}`)).body).toMatchObject({
      status: "approved",
      version: 1,
      bodyHtml: email.bodyHtml,
    });
    expect((await auditOf(v2, "template.version_created"))[0]).toMatchObject({
      metadata: expect.objectContaining({ fromTemplateId: v1 }),
    });
    expect((await findApprovedVersion(tenantCtx(w.tenantA.id), v2))?.id).toBe(v1);
  });

  it("allows one open draft per template: another edit of the approved version is 409", async () => {
    const res = await w.as("manager").patch(`/v1/templates/${v1}`, { name: "again" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
    expect((await w.as("manager").post(`/v1/templates/${v1}/version`)).status).toBe(409);
  });

  it("approving version 2 archives version 1", async () => {
    const res = await w.as("tenantAdmin").post(`/v1/templates/${v2}/approve`);
    expect(res.body).toMatchObject({ id: v2, status: "approved", version: 2 });
    expect((await w.as("viewer").get(`/v1/templates/${v1}`)).body.status).toBe("archived");
    expect((await auditOf(v1, "template.archived"))[0]).toMatchObject({
      metadata: expect.objectContaining({ supersededBy: v2 }),
    });
    expect((await findApprovedVersion(tenantCtx(w.tenantA.id), v1))?.id).toBe(v2);
  });

  it("POST /version forks an approved template into the next draft (201)", async () => {
    const res = await w.as("tenantUser").post(`/v1/templates/${v2}/version`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ rootId: v1, version: 3, status: "draft", bodyHtml: "<p>New {{firstName}}</p>" });
    const fromDraft = await w.as("tenantUser").post(`/v1/templates/${res.body.id}/version`);
    expect(fromDraft.status).toBe(409);
    expect(fromDraft.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "draft", to: "draft" } });
  });

  it("lists one template's versions with rootId, newest first; another tenant's lineage lists nothing", async () => {
    const res = await w.as("viewer").get(`/v1/templates?rootId=${v1}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { version: number; status: string }) => [t.version, t.status])).toEqual([
      [3, "draft"],
      [2, "approved"],
      [1, "archived"],
    ]);
    expect(res.body.total).toBe(3);
    expect((await w.as("viewer").get(`/v1/templates?rootId=${bTemplateId}`)).body).toMatchObject({
      data: [],
      total: 0,
    });
  });

  it("lints on approve: an email needs a subject and a body, an sms a bodyText", async () => {
    const bare = (await w.as("manager").post("/v1/templates", { name: "bare", channel: "email" })).body.id;
    const res = await w.as("manager").post(`/v1/templates/${bare}/approve`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["subject", "bodyHtml"]);
    const bareSms = (await w.as("manager").post("/v1/templates", { name: "bare", channel: "sms" })).body.id;
    expect((await w.as("manager").post(`/v1/templates/${bareSms}/approve`)).body.details.issues[0].path).toBe(
      "bodyText",
    );
  });

  it("lints on approve: an SMS over 1,600 characters with its opt-out line is refused (Twilio's limit)", async () => {
    // 1,577 characters + "\nReply STOP to opt out" (22) = 1,599: fits; one more does not
    const fits = (await w.as("manager").post("/v1/templates", { ...sms, bodyText: "a".repeat(1577) })).body.id;
    expect((await w.as("manager").post(`/v1/templates/${fits}/approve`)).status).toBe(200);
    const long = (await w.as("manager").post("/v1/templates", { ...sms, bodyText: "a".repeat(1579) })).body.id;
    const res = await w.as("manager").post(`/v1/templates/${long}/approve`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([
      {
        path: "bodyText",
        message:
          "An SMS is at most 1,600 characters with its opt-out line; this one is 1,601 (providers refuse longer messages)",
      },
    ]);
  });

  it("lints on approve: a token whose location variable was removed is unknown", async () => {
    const loc = (await w.as("manager").post("/v1/locations", { name: "Temp" })).body.id;
    await w.as("manager").put(`/v1/locations/${loc}/variables`, { variables: { promo: "10% off" } });
    const t = (await w.as("manager").post("/v1/templates", { ...sms, bodyText: "{{promo}}" })).body.id;
    await w.as("manager").put(`/v1/locations/${loc}/variables`, { variables: {} });
    const res = await w.as("manager").post(`/v1/templates/${t}/approve`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "bodyText", message: "Unknown token {{promo}}" }]);
  });
});

describe("archive", () => {
  it("archives from draft, approved and archived; an archived template cannot be edited or approved", async () => {
    const draft = (await w.as("manager").post("/v1/templates", sms)).body.id;
    const approved = (await w.as("manager").post("/v1/templates", sms)).body.id;
    await w.as("manager").post(`/v1/templates/${approved}/approve`);
    for (const id of [draft, approved]) {
      const res = await w.as("manager").post(`/v1/templates/${id}/archive`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("archived");
      expect(await auditOf(id, "template.archived")).toHaveLength(1);
    }
    const again = await w.as("manager").post(`/v1/templates/${draft}/archive`);
    expect(again.body.status).toBe("archived");
    expect(await auditOf(draft, "template.archived")).toHaveLength(1);
    expect((await w.as("manager").patch(`/v1/templates/${draft}`, { name: "x" })).body).toMatchObject({
      code: "INVALID_TRANSITION",
      details: { from: "archived", to: "draft" },
    });
    expect((await w.as("manager").post(`/v1/templates/${draft}/approve`)).status).toBe(409);
  });

  it("needs manager", async () => {
    const id = (await w.as("manager").post("/v1/templates", sms)).body.id;
    expect((await w.as("tenantUser").post(`/v1/templates/${id}/archive`)).status).toBe(403);
  });
});

describe("preview", () => {
  it("renders sample values, appends the unsubscribe link to an email without one", async () => {
    const id = (await w.as("manager").post("/v1/templates", email)).body.id;
    const res = await w.as("viewer").get(`/v1/templates/${id}/preview`);
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe("How was Sample Location, Jane?");
    expect(res.body.html).toContain(
      '<p>Hi Jane, <a href="http://localhost:8787/v1/r/preview?redirect=1">review</a></p>',
    );
    expect(res.body.html).toContain('<a href="http://localhost:8787/unsubscribe/preview">unsubscribe</a>');
    expect(res.body.text).toBe(
      "Hi Jane: http://localhost:8787/v1/r/preview?redirect=1\n\nUnsubscribe: http://localhost:8787/unsubscribe/preview",
    );
    expect(res.body).toMatchObject({ unsubscribeLinkAppended: true, sms: null });
  });

  it("escapes HTML in values from a location: name, brand and custom variables", async () => {
    const loc = (await w.as("manager").post("/v1/locations", { name: "<b>Tom & Jerry's</b>" })).body.id;
    await w.as("manager").put(`/v1/locations/${loc}/variables`, { variables: { note: '<script>alert("x")</script>' } });
    const id = (
      await w.as("manager").post("/v1/templates", {
        name: "esc",
        channel: "email",
        subject: "{{locationName}}",
        bodyHtml: "<h1>{{locationName}}</h1><p>{{note}}</p><p>{{brandName}}</p>{{unsubscribeLink}}",
        bodyText: "{{note}} {{unsubscribeLink}}",
      })
    ).body.id;
    const res = await w.as("viewer").get(`/v1/templates/${id}/preview?locationId=${loc}`);
    expect(res.body.html).toBe(
      `<h1>&lt;b&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;</h1><p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p><p>${w.tenantA.name} brand</p>http://localhost:8787/unsubscribe/preview`,
    );
    expect(res.body.subject).toBe("<b>Tom & Jerry's</b>");
    expect(res.body.text).toBe('<script>alert("x")</script> http://localhost:8787/unsubscribe/preview');
    expect(res.body.unsubscribeLinkAppended).toBe(false);
  });

  it("reports SMS segments with the opt-out text", async () => {
    const id = (await w.as("manager").post("/v1/templates", sms)).body.id;
    const res = await w.as("viewer").get(`/v1/templates/${id}/preview`);
    const text =
      "Hi Jane, review Sample Location: http://localhost:8787/v1/r/preview?redirect=1\nReply STOP to opt out";
    expect(res.body).toMatchObject({
      subject: null,
      html: null,
      text,
      sms: { encoding: "GSM-7", units: text.length, segments: 1 },
    });
  });

  it("POST /v1/templates/preview renders unsaved content of a channel with the same sample values", async () => {
    const res = await w.as("viewer").post("/v1/templates/preview", {
      channel: "sms",
      bodyText: "Hi {{firstName}}, review {{locationName}}: {{reviewLink}}",
    });
    expect(res.status).toBe(200);
    const text =
      "Hi Jane, review Sample Location: http://localhost:8787/v1/r/preview?redirect=1\nReply STOP to opt out";
    expect(res.body).toEqual({
      subject: null,
      html: null,
      text,
      unsubscribeLinkAppended: false,
      sms: { encoding: "GSM-7", units: text.length, segments: 1 },
    });
    const mail = await w.as("viewer").post("/v1/templates/preview", { channel: "email", subject: "Hi {{firstName}}" });
    expect(mail.body).toMatchObject({ subject: "Hi Jane", html: null, text: null });
    const unknown = await w.as("viewer").post("/v1/templates/preview", { channel: "sms", bodyText: "{{promo}}" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.issues).toEqual([{ path: "bodyText", message: "Unknown token {{promo}}" }]);
    const bLoc = (await w.as("tenantBAdmin").post("/v1/locations", { name: "B2" })).body.id;
    const other = await w
      .as("viewer")
      .post("/v1/templates/preview", { channel: "sms", bodyText: "x", locationId: bLoc });
    expect(other.status).toBe(400);
    expect(other.body.details.issues[0].path).toBe("locationId");
  });

  it("refuses another tenant's location", async () => {
    const id = (await w.as("manager").post("/v1/templates", sms)).body.id;
    const bLoc = (await w.as("tenantBAdmin").post("/v1/locations", { name: "B" })).body.id;
    const res = await w.as("viewer").get(`/v1/templates/${id}/preview?locationId=${bLoc}`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("locationId");
  });
});

describe("tenant isolation", () => {
  it("treats another tenant's template as not found on every route", async () => {
    const a = w.as("tenantAdmin");
    const results = await Promise.all([
      a.get(`/v1/templates/${bTemplateId}`),
      a.patch(`/v1/templates/${bTemplateId}`, { name: "x" }),
      a.post(`/v1/templates/${bTemplateId}/approve`),
      a.post(`/v1/templates/${bTemplateId}/archive`),
      a.post(`/v1/templates/${bTemplateId}/version`),
      a.get(`/v1/templates/${bTemplateId}/preview`),
    ]);
    expect(results.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404]);
    expect((await w.as("tenantBAdmin").get(`/v1/templates/${bTemplateId}`)).body).toMatchObject({
      status: "draft",
      name: "Review request",
    });
  });
});
