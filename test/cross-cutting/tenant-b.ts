import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { autoReplies, backgroundJobs, customHostnames } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import { newId } from "../../src/lib/ids";
import { systemContext } from "../../src/lib/system-context";
import { fanOutEvent } from "../../src/modules/outgoing-webhooks/fanout";
import { createRecommendation } from "../../src/modules/recommendations/service";
import { event, seedReview } from "../automation/helpers";
import type { ApiResponse } from "../helpers/http";
import { db, shardOf, type World } from "../helpers/seed";

const created = (res: ApiResponse, what: string) => {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body as { id: string; [k: string]: any };
};

/** Ids that exist in no tenant, for the few resources no test can create (see ids.unknown). */
export const UNKNOWN_ID = "ckunknown0000000000000000";

/**
 * One real resource of every kind in tenant B (or A, for the fuzzer), created through B's own API (or, for rows only
 * background jobs write, through the service or D1 as those jobs do). Keys are the path templates'
 * parameter names qualified by the collection they belong to.
 */
export async function seedTenantB(w: World, admin: "tenantBAdmin" | "tenantAdmin" = "tenantBAdmin") {
  const tenant = admin === "tenantBAdmin" ? w.tenantB : w.tenantA;
  const tenantId = tenant.id;
  const b = w.as(admin);
  const brand = created(await b.post("/v1/brands", { name: "B brand" }), "brand");
  const location = created(await b.post("/v1/locations", { name: "B location", brandId: brand.id }), "location");
  const template = created(
    await b.post("/v1/templates", {
      name: "B template",
      channel: "email",
      subject: "Hi",
      bodyText: "Hello {{firstName}}",
    }),
    "template",
  );
  const campaign = created(
    await b.post("/v1/campaigns", {
      name: "B campaign",
      type: "one_time",
      channels: ["email"],
      locationId: location.id,
    }),
    "campaign",
  );
  const binding = created(
    await b.post(`/v1/campaigns/${campaign.id}/templates`, { templateId: template.id, channel: "email" }),
    "binding",
  );
  const experiment = created(
    await b.post("/v1/experiments", {
      name: "B experiment",
      hypothesis: "h",
      variants: [
        { name: "Control", trafficPercent: 50 },
        { name: "B", trafficPercent: 50 },
      ],
    }),
    "experiment",
  );
  const integration = created(
    await b.post("/v1/integrations", {
      connectorType: "hubspot",
      name: "B hubspot",
      config: {},
      credentials: { accessToken: "t" },
    }),
    "integration",
  );
  const review = created(
    await b.post("/v1/reviews/ingest", {
      locationId: location.id,
      siteType: "google",
      rating: 2,
      text: "B review",
      externalReviewId: `b-${newId()}`,
    }),
    "review",
  );
  const response = created(await b.post(`/v1/reviews/${review.id}/responses`, { text: "Sorry" }), "response");
  const slaRule = created(
    await b.post("/v1/settings/sla-rules", { name: "B sla", responseWindowHours: 24, escalateAfterHours: 48 }),
    "sla rule",
  );
  const contact = created(
    await b.post("/v1/contacts", { email: `b-${newId()}@example.test`, firstName: "Bea" }),
    "contact",
  );
  const apiKey = created(await b.post("/v1/api-keys", { name: "B key" }), "api key");
  const region = created(await b.post("/v1/regions", { name: "B region" }), "region");
  const user = created(
    await b.post("/v1/users/invite", { email: `b-user-${newId()}@example.test`, role: "viewer" }),
    "user",
  );
  const competitor = created(
    await b.post("/v1/competitors", { locationId: location.id, name: "B rival" }),
    "competitor",
  );
  const survey = created(await b.post("/v1/surveys", { name: "B survey", type: "NPS" }), "survey");
  const webhook = created(
    await b.post("/v1/webhooks", { url: "https://hooks.example.com/b", events: ["experiment.completed"] }),
    "webhook",
  );
  const rule = created(
    await b.post("/v1/automation-rules", {
      name: "B rule",
      triggerEventType: "review.negative",
      locationId: location.id,
      actions: [{ type: "add_tags", config: { tags: ["b"] } }],
    }),
    "automation rule",
  );
  const chat = await b.post("/v1/assistant/chat", { message: "How are our reviews doing?" });
  expect(chat.status, "B conversation").toBe(200);
  const conversationId = JSON.parse(/event: conversation\ndata: (.*)\n/.exec(chat.text)![1]!).conversationId as string;
  const reviewLink = created(
    await b.post("/v1/review-links", { locationId: location.id, weights: { google: 1 } }),
    "review link",
  );
  const widget = created(await b.post("/v1/widgets", { name: "B widget", locationId: location.id }), "widget");
  const alertSubscription = created(
    await b.post("/v1/alert-subscriptions", {
      locationId: location.id,
      instantEmail: false,
      digestFrequency: "weekly",
    }),
    "alert subscription",
  );
  const autoReplyRule = created(
    await b.post("/v1/auto-reply-rules", {
      name: "B auto",
      ratings: [5],
      source: "engine",
      locationId: location.id,
      isActive: false,
    }),
    "auto-reply rule",
  );
  const solicitation = created(
    await b.post(
      "/v1/solicitations",
      { locationId: location.id, contactId: contact.id, channel: "email" },
      { "idempotency-key": `b-${newId()}` },
    ),
    "solicitation",
  );

  // written by background work in production: the inbox item of a review, a webhook delivery, a
  // recommendation and a job row
  const { item } = await seedReview(tenantId, location.id);
  const sent: { deliveryId: string }[] = [];
  await fanOutEvent(
    event(tenantId, "experiment.completed", { experimentId: experiment.id }),
    env,
    shardDb(env, tenant.shard),
    {
      sendBatch: async (m: { body: { deliveryId: string } }[]) => void sent.push(...m.map((x) => x.body)),
    } as never,
  );
  expect(sent.length, "B webhook delivery").toBe(1);
  const { recommendation } = await createRecommendation(await systemContext(env as never, tenantId, "test"), {
    type: "custom",
    scopeType: "location",
    scopeId: location.id,
    title: "B rec",
    description: "d",
    priority: "low",
    confidence: 0.5,
    riskLevel: "low",
    actionPayload: { kind: "update_location", locationId: location.id, patch: { name: "X" } },
  } as never);
  const now = new Date().toISOString();
  const autoReplyId = newId();
  await shardOf(tenant)
    .insert(autoReplies)
    .values({
      id: autoReplyId,
      tenantId,
      ruleId: autoReplyRule.id,
      reviewId: review.id,
      responseId: response.id,
      mode: "auto_publish",
      status: "scheduled",
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
      attempts: 0,
      cancelReason: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    });
  const jobId = `job_${newId()}`;
  await shardOf(tenant).insert(backgroundJobs).values({
    id: jobId,
    tenantId,
    type: "crm_import",
    status: "queued",
    subjectId: integration.id,
    counts: {},
    cursor: null,
    error: null,
    createdByUserId: null,
    startedAt: null,
    finishedAt: null,
    createdAt: now,
    updatedAt: now,
  });

  // a CSV contact import job (GET /v1/contacts/import-jobs/{jobId})
  const importJobId = `job_${newId()}`;
  await shardOf(tenant)
    .insert(backgroundJobs)
    .values({
      id: importJobId,
      tenantId,
      type: "contacts_import",
      status: "succeeded",
      subjectId: null,
      counts: { done: 1, total: 1, imported: 1, skipped: 0 },
      cursor: "1",
      error: null,
      createdByUserId: null,
      input: { csv: "email\nb@example.test", fileName: "b.csv" },
      result: { imported: 1, skipped: 0, errors: [] },
      startedAt: now,
      finishedAt: now,
      createdAt: now,
      updatedAt: now,
    });

  // a finished tenant data export (docs/exports.md) as its job leaves it: downloadable, so that only the
  // tenant check can make A's request for it a 404
  const exportId = `job_${newId()}`;
  await shardOf(tenant)
    .insert(backgroundJobs)
    .values({
      id: exportId,
      tenantId,
      type: "tenant_export",
      status: "succeeded",
      subjectId: null,
      counts: { done: 0, total: 0, chunks: 0 },
      cursor: null,
      error: null,
      createdByUserId: null,
      startedAt: now,
      finishedAt: now,
      createdAt: now,
      updatedAt: now,
    });

  // a custom hostname as the Cloudflare status sweep leaves it (creating one calls Cloudflare)
  const hostnameId = newId();
  // custom hostnames are control-plane rows (found by host before the tenant is known)
  await db()
    .insert(customHostnames)
    .values({
      id: hostnameId,
      scope: "tenant",
      scopeId: tenantId,
      agencyId: admin === "tenantBAdmin" ? w.agencyB.id : w.agencyA.id,
      hostname: `b-${hostnameId}.example.test`,
      providerId: null,
      status: "pending",
      sslStatus: null,
      verification: {},
      activatedAt: null,
      lastCheckedAt: null,
      createdAt: now,
      updatedAt: now,
    });

  /** The id of B's resource named by a path template and one of its parameters. */
  return (path: string, param: string): string => {
    if (param === "channel") return "email";
    if (param === "bindingId") return binding.id;
    if (param === "deliveryId") return sent[0]!.deliveryId;
    if (param === "integrationId") return integration.id;
    if (param === "jobId") return importJobId;
    if (param === "reviewId") return review.id;
    if (param === "campaignId") return campaign.id;
    const collection = path.split("/")[2];
    const byCollection: Record<string, string> = {
      brands: brand.id,
      locations: location.id,
      templates: template.id,
      campaigns: campaign.id,
      experiments: experiment.id,
      integrations: integration.id,
      reviews: review.id,
      responses: response.id,
      settings: slaRule.id,
      contacts: contact.id,
      "api-keys": apiKey.id,
      regions: region.id,
      users: user.user?.id ?? user.id,
      competitors: competitor.id,
      recommendations: recommendation.id,
      inbox: item.id,
      surveys: survey.id,
      webhooks: webhook.id,
      "automation-rules": rule.id,
      jobs: jobId,
      exports: exportId,
      solicitations: solicitation.id,
      assistant: conversationId,
      "review-links": reviewLink.id,
      widgets: widget.id,
      "auto-reply-rules": autoReplyRule.id,
      "auto-replies": autoReplyId,
      "alert-subscriptions": alertSubscription.id,
      hostnames: hostnameId,
      // OAuth grants live in the OAuth provider's KV store and are only created by a full
      // authorization-code flow; an id no tenant has stands in (the route must still say 404)
      oauth: UNKNOWN_ID,
    };
    const id = byCollection[collection!];
    if (!id) throw new Error(`no tenant-B fixture for ${path} {${param}}`);
    return id;
  };
}
