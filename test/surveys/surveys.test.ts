import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, campaigns, feedbackSubmissions, feedbackViews } from "../../src/db/schema";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { eventually, newContact, newLocation, newSolicitation, submit } from "../inbox/helpers";

let w: World;
let loc: { id: string };
let contactId: string;

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
  contactId = (await newContact(w)).id;
});

const QUESTIONS = [
  {
    id: "visit_reason",
    type: "single_choice",
    label: "Why did you visit?",
    required: true,
    options: ["Checkup", "Emergency", "Other"],
  },
  { id: "return", type: "yes_no", label: "Would you come back?" },
];

async function newSurvey(body: Record<string, unknown> = {}) {
  const res = await w
    .as("manager")
    .post("/v1/surveys", { name: "Post-visit NPS", type: "NPS", questions: QUESTIONS, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; status: string };
}

async function newCampaign() {
  const res = await w
    .as("manager")
    .post("/v1/campaigns", { name: `C ${Math.random()}`, type: "one_time", channels: ["email"] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

describe("survey CRUD", () => {
  it("creates a draft, validates questions, and is tenant-scoped and role-checked", async () => {
    const s = await newSurvey({ description: "After each visit" });
    expect(s).toMatchObject({
      status: "draft",
      type: "NPS",
      isTemplate: false,
      description: "After each visit",
      launchedAt: null,
      tenantId: w.tenantA.id,
    });
    expect((s as unknown as { questions: unknown[] }).questions).toEqual([
      { ...QUESTIONS[0] },
      { ...QUESTIONS[1], required: false },
    ]);
    const bad = await w.as("manager").post("/v1/surveys", {
      name: "x",
      type: "NPS",
      questions: [
        { id: "a", type: "single_choice", label: "?" },
        { id: "a", type: "text", label: "?" },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "questions.0.options",
      "questions.1.id",
    ]);
    expect((await w.as("manager").post("/v1/surveys", { name: "x", type: "SMILEY" })).status).toBe(400);
    expect((await w.as("tenantUser").post("/v1/surveys", { name: "x", type: "CSAT" })).status).toBe(403);
    expect((await w.as("viewer").get(`/v1/surveys/${s.id}`)).body.id).toBe(s.id);
    expect((await w.as("tenantBAdmin").get(`/v1/surveys/${s.id}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").patch(`/v1/surveys/${s.id}`, { name: "mine" })).status).toBe(404);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, s.id), eq(auditEvents.action, "survey.created")))
      .get();
    expect(audit!.actorId).toBe(w.users.manager.id);
  });

  it("moves draft -> active -> closed -> active; other moves are 409; questions are frozen after launch", async () => {
    const s = await newSurvey();
    expect((await w.as("manager").patch(`/v1/surveys/${s.id}`, { status: "closed" })).body).toMatchObject({
      code: "INVALID_TRANSITION",
      details: { from: "draft", to: "closed" },
    });
    const launched = await w.as("manager").patch(`/v1/surveys/${s.id}`, { status: "active" });
    expect(launched.body).toMatchObject({ status: "active", launchedAt: expect.any(String) });
    expect((await w.as("manager").patch(`/v1/surveys/${s.id}`, { questions: [] })).status).toBe(409);
    expect((await w.as("manager").patch(`/v1/surveys/${s.id}`, { status: "draft" })).status).toBe(409);
    const closed = await w.as("manager").patch(`/v1/surveys/${s.id}`, { status: "closed" });
    expect(closed.body).toMatchObject({ status: "closed", closedAt: expect.any(String) });
    const reopened = await w.as("manager").patch(`/v1/surveys/${s.id}`, { status: "active", name: "Renamed" });
    expect(reopened.body).toMatchObject({
      status: "active",
      closedAt: null,
      name: "Renamed",
      launchedAt: launched.body.launchedAt,
    });
  });

  it("templates are listed apart and cannot be launched or attached", async () => {
    const t = await newSurvey({ name: "CSAT template", type: "CSAT", isTemplate: true, questions: [] });
    expect((await w.as("manager").patch(`/v1/surveys/${t.id}`, { status: "active" })).status).toBe(400);
    const c = await newCampaign();
    expect((await w.as("manager").put(`/v1/campaigns/${c.id}/survey`, { surveyId: t.id })).status).toBe(400);
    const templates = await w.as("viewer").get("/v1/surveys?isTemplate=true");
    expect(templates.body.data.map((s: { id: string }) => s.id)).toEqual([t.id]);
    const csat = await w.as("viewer").get("/v1/surveys?type=CSAT&status=draft");
    expect(csat.body.data.map((s: { id: string }) => s.id)).toEqual([t.id]);
  });

  it("deletes a survey without responses", async () => {
    const s = await newSurvey();
    expect((await w.as("manager").delete(`/v1/surveys/${s.id}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/surveys/${s.id}`)).status).toBe(404);
  });
});

describe("a survey on a campaign's feedback page", () => {
  let survey: { id: string };
  let campaign: { id: string };
  const sol = () =>
    newSolicitation({
      tenantId: w.tenantA.id,
      locationId: loc.id,
      contactId,
      campaignId: campaign.id,
      destination: "survey",
    });

  beforeAll(async () => {
    survey = await newSurvey();
    await w.as("manager").patch(`/v1/surveys/${survey.id}`, { status: "active" });
    campaign = await newCampaign();
  });

  it("attaching sets the campaign's destination to survey; another tenant's campaign is 404", async () => {
    const res = await w.as("manager").put(`/v1/campaigns/${campaign.id}/survey`, { surveyId: survey.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ campaignId: campaign.id, survey: { id: survey.id } });
    expect((await db().select().from(campaigns).where(eq(campaigns.id, campaign.id)).get())!.reviewDestination).toBe(
      "survey",
    );
    expect((await w.as("viewer").get(`/v1/campaigns/${campaign.id}/survey`)).body.survey.id).toBe(survey.id);
    expect(
      (await w.as("tenantBAdmin").put(`/v1/campaigns/${campaign.id}/survey`, { surveyId: survey.id })).status,
    ).toBe(404);
    expect((await w.as("manager").put(`/v1/campaigns/${campaign.id}/survey`, { surveyId: "nope" })).status).toBe(400);
  });

  it("the landing data and the hosted page show the survey", async () => {
    const s = await sol();
    const landing = await request("GET", `/v1/f/${s.token}`);
    expect(landing.body.survey).toMatchObject({
      id: survey.id,
      type: "NPS",
      questions: [{ id: "visit_reason" }, { id: "return" }],
    });
    const page = await request("GET", `/f/${s.token}`);
    expect(page.text).toContain("How likely are you to recommend");
    expect(page.text).toContain('name="q.visit_reason"');
  });

  it("checks answers against the survey's questions", async () => {
    const s = await sol();
    const res = await submit(s.token, {
      npsScore: 7,
      surveyResponses: { visit_reason: "Spa day", nope: 1, return: "maybe" },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "surveyResponses.nope",
      "surveyResponses.return",
      "surveyResponses.visit_reason",
    ]);
    expect((await submit(s.token, { npsScore: 7 })).body.details.issues).toEqual([
      { path: "surveyResponses.visit_reason", message: "Required" },
    ]);
    expect(
      (await submit(s.token, { surveyType: "csat", score: 4, surveyResponses: { visit_reason: "Other" } })).status,
    ).toBe(400);
    const ok = await submit(s.token, { npsScore: 7, surveyResponses: { visit_reason: "Other", return: true } });
    expect(ok.status).toBe(201);
  });

  it("stats match hand-computed values", async () => {
    // 6 responses, 2 more pages opened without answering
    const answers = [
      { npsScore: 10, text: "Amazing staff, very friendly and helpful." },
      { npsScore: 9, text: "Great service." },
      { npsScore: 9 },
      { npsScore: 8, callbackRequested: true },
      { npsScore: 3, text: "Terrible wait, rude staff." },
      { npsScore: 0, text: "Overpriced and slow." },
    ];
    const fresh = await newSurvey({ name: "Stats" });
    await w.as("manager").patch(`/v1/surveys/${fresh.id}`, { status: "active" });
    const c = await newCampaign();
    await w.as("manager").put(`/v1/campaigns/${c.id}/survey`, { surveyId: fresh.id });
    const links = await Promise.all(
      Array.from({ length: 8 }, () =>
        newSolicitation({
          tenantId: w.tenantA.id,
          locationId: loc.id,
          contactId,
          campaignId: c.id,
          destination: "survey",
        }),
      ),
    );
    for (const l of links) expect((await request("GET", `/v1/f/${l.token}`)).status).toBe(200);
    await eventually(
      () => db().select().from(feedbackViews).where(eq(feedbackViews.surveyId, fresh.id)),
      (rows) => rows.length === 8,
    );
    for (const [i, a] of answers.entries()) {
      const res = await submit(links[i]!.token, { ...a, surveyResponses: { visit_reason: "Checkup" } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // fixed times: 30, 60, ..., 180 seconds from landing to submit
      await db()
        .update(feedbackSubmissions)
        .set({
          landedAt: "2026-03-01T10:00:00.000Z",
          submittedAt: new Date(Date.parse("2026-03-01T10:00:00.000Z") + (i + 1) * 30_000).toISOString(),
        })
        .where(eq(feedbackSubmissions.id, res.body.feedbackId));
    }
    const stats = await w.as("viewer").get(`/v1/surveys/${fresh.id}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      surveyId: fresh.id,
      type: "NPS",
      totals: { views: 8, responses: 6, withComment: 4, callbackRequests: 1 },
      completionRate: 0.75, // 6 / 8
      averageTimeToCompleteSeconds: 105, // (30+60+90+120+150+180) / 6
      nps: { score: 16.7, promoters: 3, passives: 1, detractors: 2, responses: 6 }, // (3 - 2) / 6 * 100
      averageScore: 6.5, // 39 / 6
      sentiment: { positive: 4, neutral: 0, negative: 2 },
      topThemes: [
        { theme: "staff", count: 2 },
        { theme: "wait_time", count: 2 },
        { theme: "price", count: 1 },
        { theme: "service", count: 1 },
      ],
    });

    const page1 = await w.as("viewer").get(`/v1/surveys/${fresh.id}/responses?limit=4`);
    expect(page1.body.total).toBe(6);
    expect(page1.body.data.map((r: { npsScore: number; npsBucket: string }) => [r.npsScore, r.npsBucket])).toEqual([
      [0, "detractor"],
      [3, "detractor"],
      [8, "passive"],
      [9, "promoter"],
    ]);
    expect(page1.body.data[0]).toMatchObject({
      sentiment: "negative",
      surveyResponses: { visit_reason: "Checkup" },
      surveyId: fresh.id,
    });
    const page2 = await w
      .as("viewer")
      .get(`/v1/surveys/${fresh.id}/responses?limit=4&cursor=${page1.body.pageInfo.endCursor}`);
    expect(page2.body.data.map((r: { npsScore: number }) => r.npsScore)).toEqual([9, 10]);
    const since = await w.as("viewer").get(`/v1/surveys/${fresh.id}/responses?since=2026-03-01T10:02:30Z`);
    expect(since.body.data.map((r: { npsScore: number }) => r.npsScore)).toEqual([0, 3]);

    expect((await w.as("manager").delete(`/v1/surveys/${fresh.id}`)).status).toBe(409);
    expect((await w.as("tenantBAdmin").get(`/v1/surveys/${fresh.id}/stats`)).status).toBe(404);
  });

  it("an empty survey has null rates", async () => {
    const s = await newSurvey({ name: "Empty" });
    const stats = await w.as("viewer").get(`/v1/surveys/${s.id}/stats`);
    expect(stats.body).toMatchObject({
      completionRate: null,
      averageTimeToCompleteSeconds: null,
      averageScore: null,
      nps: { score: null, responses: 0 },
      topThemes: [],
    });
  });

  it("detaching falls back to the rating form", async () => {
    const c = await newCampaign();
    await w.as("manager").put(`/v1/campaigns/${c.id}/survey`, { surveyId: survey.id });
    expect((await w.as("manager").delete(`/v1/campaigns/${c.id}/survey`)).status).toBe(204);
    const s = await newSolicitation({
      tenantId: w.tenantA.id,
      locationId: loc.id,
      contactId,
      campaignId: c.id,
      destination: "survey",
    });
    expect((await request("GET", `/v1/f/${s.token}`)).body.survey).toBeNull();
  });
});
