import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { auditOf } from "./support";

let w: World;
let campaignId: string;
let emailTemplate: { id: string };
let smsTemplate: { id: string };
let whatsappTemplate: { id: string };
let archivedTemplate: string;
let bTemplateId: string;

const emailBody = { name: "Ask", channel: "email", subject: "Hi {{firstName}}", bodyText: "Review: {{reviewLink}}" };

beforeAll(async () => {
  w = await createWorld();
  const m = w.as("manager");
  campaignId = (await m.post("/v1/campaigns", { name: "Drip", type: "drip", channels: ["email", "sms"] })).body.id;
  emailTemplate = (await m.post("/v1/templates", emailBody)).body;
  await m.post(`/v1/templates/${emailTemplate.id}/approve`);
  smsTemplate = (await m.post("/v1/templates", { name: "SMS", channel: "sms", bodyText: "Hi {{firstName}}" })).body;
  whatsappTemplate = (await m.post("/v1/templates", { name: "WA", channel: "whatsapp", bodyText: "Hi" })).body;
  archivedTemplate = (await m.post("/v1/templates", emailBody)).body.id;
  await m.post(`/v1/templates/${archivedTemplate}/archive`);
  bTemplateId = (await w.as("tenantBAdmin").post("/v1/templates", emailBody)).body.id;
});

describe("template bindings", () => {
  let bindingId: string;

  it("binds with the spec's defaults and embeds the template", async () => {
    const res = await w
      .as("manager")
      .post(`/v1/campaigns/${campaignId}/templates`, { templateId: emailTemplate.id, channel: "email" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      campaignId,
      templateId: emailTemplate.id,
      channel: "email",
      locale: "en-US",
      variantKey: "control",
      priority: 0,
      isControl: true,
      activeFrom: null,
      activeTo: null,
      template: { id: emailTemplate.id, status: "approved", channel: "email", name: "Ask" },
    });
    bindingId = res.body.id;
    expect((await auditOf(bindingId, "campaign.template_bound"))[0]).toMatchObject({
      actorId: w.users.manager.id,
      metadata: expect.objectContaining({ campaignId }),
    });
  });

  it("binds a draft too (sends use the approved version of its lineage) with explicit fields", async () => {
    const res = await w.as("manager").post(`/v1/campaigns/${campaignId}/templates`, {
      templateId: smsTemplate.id,
      channel: "sms",
      locale: "es-MX",
      variantKey: "b",
      priority: 5,
      isControl: false,
      activeFrom: "2026-01-01T00:00:00Z",
      activeTo: "2026-06-01T00:00:00Z",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      locale: "es-MX",
      variantKey: "b",
      priority: 5,
      isControl: false,
      activeFrom: "2026-01-01T00:00:00.000Z",
      template: { status: "draft" },
    });
  });

  it("lists the bindings by channel then priority", async () => {
    await w.as("manager").post(`/v1/campaigns/${campaignId}/templates`, {
      templateId: smsTemplate.id,
      channel: "sms",
      variantKey: "c",
      priority: 9,
    });
    const res = await w.as("viewer").get(`/v1/campaigns/${campaignId}/templates`);
    expect(res.status).toBe(200);
    expect(res.body.map((b: { channel: string; priority: number }) => [b.channel, b.priority])).toEqual([
      ["email", 0],
      ["sms", 9],
      ["sms", 5],
    ]);
    expect(res.body[0].template.id).toBe(emailTemplate.id);
  });

  it("refuses a template of another channel, another tenant, an archived one, or a channel the campaign does not use", async () => {
    const post = (body: object) => w.as("manager").post(`/v1/campaigns/${campaignId}/templates`, body);
    const cases: [object, object][] = [
      [
        { templateId: emailTemplate.id, channel: "sms" },
        { path: "templateId", message: "The template is for email, not sms" },
      ],
      [
        { templateId: bTemplateId, channel: "email" },
        { path: "templateId", message: "Unknown template" },
      ],
      [
        { templateId: archivedTemplate, channel: "email" },
        { path: "templateId", message: "The template is archived" },
      ],
      [
        { templateId: whatsappTemplate.id, channel: "whatsapp" },
        { path: "channel", message: "The campaign does not use whatsapp" },
      ],
    ];
    for (const [body, issue] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.details.issues).toEqual([issue]);
    }
    expect(
      (await post({ templateId: emailTemplate.id, channel: "email", priority: 1.5 })).body.details.issues[0].path,
    ).toBe("priority");
    const window = await post({
      templateId: emailTemplate.id,
      channel: "email",
      activeFrom: "2026-02-01T00:00:00Z",
      activeTo: "2026-01-01T00:00:00Z",
    });
    expect(window.body.details.issues).toEqual([{ path: "activeTo", message: "activeTo must be after activeFrom" }]);
  });

  it("answers 409 to the same template bound twice for the same channel, locale and variant", async () => {
    const res = await w
      .as("manager")
      .post(`/v1/campaigns/${campaignId}/templates`, { templateId: emailTemplate.id, channel: "email" });
    expect(res.status).toBe(409);
  });

  it("needs manager", async () => {
    expect(
      (
        await w
          .as("tenantUser")
          .post(`/v1/campaigns/${campaignId}/templates`, { templateId: emailTemplate.id, channel: "email" })
      ).status,
    ).toBe(403);
    expect((await w.as("viewer").delete(`/v1/campaigns/${campaignId}/templates/${bindingId}`)).status).toBe(403);
  });

  it("deletes a binding (204), then it is gone (404)", async () => {
    const res = await w.as("manager").delete(`/v1/campaigns/${campaignId}/templates/${bindingId}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(
      (await w.as("viewer").get(`/v1/campaigns/${campaignId}/templates`)).body.map((b: { id: string }) => b.id),
    ).not.toContain(bindingId);
    expect((await w.as("manager").delete(`/v1/campaigns/${campaignId}/templates/${bindingId}`)).status).toBe(404);
    expect((await auditOf(bindingId, "campaign.template_unbound"))[0]).toMatchObject({
      previousState: expect.objectContaining({ templateId: emailTemplate.id }),
    });
  });
});

describe("sequences", () => {
  it("returns null when the campaign has none", async () => {
    const res = await w.as("viewer").get(`/v1/campaigns/${campaignId}/sequence`);
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
  });

  let sequenceId: string;

  it("creates with steps sorted by stepIndex and templates embedded", async () => {
    const res = await w.as("manager").put(`/v1/campaigns/${campaignId}/sequence`, {
      steps: [
        { stepIndex: 2, channel: "sms", delayDays: 7, templateId: smsTemplate.id },
        { stepIndex: 0, channel: "email", delayDays: 0, templateId: emailTemplate.id },
        { stepIndex: 1, channel: "email", delayDays: 3 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ campaignId, name: "Drip sequence" });
    expect(
      res.body.steps.map((s: { stepIndex: number; channel: string; delayDays: number; templateId: string | null }) => [
        s.stepIndex,
        s.channel,
        s.delayDays,
        s.templateId,
      ]),
    ).toEqual([
      [0, "email", 0, emailTemplate.id],
      [1, "email", 3, null],
      [2, "sms", 7, smsTemplate.id],
    ]);
    expect(res.body.steps[0].template).toMatchObject({ id: emailTemplate.id, channel: "email" });
    expect(res.body.steps[1].template).toBeNull();
    sequenceId = res.body.id;
    expect((await w.as("viewer").get(`/v1/campaigns/${campaignId}/sequence`)).body).toEqual(res.body);
  });

  it("replaces the steps on a second PUT, keeping the sequence id", async () => {
    const res = await w.as("manager").put(`/v1/campaigns/${campaignId}/sequence`, {
      name: "Short",
      steps: [{ stepIndex: 5, channel: "sms", delayDays: 1 }],
    });
    expect(res.body).toMatchObject({
      id: sequenceId,
      name: "Short",
      steps: [{ stepIndex: 5, channel: "sms", delayDays: 1, templateId: null, template: null }],
    });
    expect((await w.as("viewer").get(`/v1/campaigns/${campaignId}/sequence`)).body.steps).toHaveLength(1);
    const audit = await auditOf(sequenceId);
    expect(audit.map((a) => a.action)).toEqual(["campaign.sequence_created", "campaign.sequence_replaced"]);
    expect(audit[1]).toMatchObject({
      previousState: {
        name: "Drip sequence",
        steps: expect.arrayContaining([expect.objectContaining({ stepIndex: 2 })]),
      },
      nextState: { name: "Short" },
    });
  });

  it("validates the steps", async () => {
    const put = (steps: object[]) => w.as("manager").put(`/v1/campaigns/${campaignId}/sequence`, { steps });
    const dup = await put([
      { stepIndex: 0, channel: "email", delayDays: 0 },
      { stepIndex: 0, channel: "sms", delayDays: 1 },
    ]);
    expect(dup.status).toBe(400);
    expect(dup.body.details.issues).toEqual([{ path: "steps.1.stepIndex", message: "Duplicate stepIndex 0" }]);
    const neg = await put([{ stepIndex: -1, channel: "email", delayDays: -2 }]);
    expect(neg.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "steps.0.delayDays",
      "steps.0.stepIndex",
    ]);
    expect((await put([])).status).toBe(400);
    const wrong = await put([
      { stepIndex: 0, channel: "sms", delayDays: 0, templateId: emailTemplate.id },
      { stepIndex: 1, channel: "email", delayDays: 0, templateId: bTemplateId },
    ]);
    expect(wrong.body.details.issues).toEqual([
      { path: "steps.0.templateId", message: "The template is for email, not sms" },
      { path: "steps.1.templateId", message: "Unknown template" },
    ]);
    const off = await put([{ stepIndex: 0, channel: "whatsapp", delayDays: 0 }]);
    expect(off.body.details.issues).toEqual([
      { path: "steps.0.channel", message: "The campaign does not use whatsapp" },
    ]);
    expect((await w.as("viewer").get(`/v1/campaigns/${campaignId}/sequence`)).body.name).toBe("Short");
  });

  it("needs manager", async () => {
    expect(
      (
        await w
          .as("tenantUser")
          .put(`/v1/campaigns/${campaignId}/sequence`, { steps: [{ stepIndex: 0, channel: "email", delayDays: 0 }] })
      ).status,
    ).toBe(403);
    expect((await w.as("viewer").delete(`/v1/campaigns/${campaignId}/sequence`)).status).toBe(403);
  });

  it("deletes (204), then GET is null and DELETE is 404", async () => {
    const res = await w.as("manager").delete(`/v1/campaigns/${campaignId}/sequence`);
    expect(res.status).toBe(204);
    expect((await w.as("viewer").get(`/v1/campaigns/${campaignId}/sequence`)).body).toBeNull();
    expect((await w.as("manager").delete(`/v1/campaigns/${campaignId}/sequence`)).status).toBe(404);
    expect((await auditOf(sequenceId, "campaign.sequence_deleted"))[0]).toMatchObject({
      previousState: { name: "Short", steps: [expect.objectContaining({ stepIndex: 5 })] },
    });
  });
});
