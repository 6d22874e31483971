import { env, exports } from "cloudflare:workers";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { customHostnames, inboxItems, solicitations, templates } from "../../src/db/schema";
import { controlDb, shardDb } from "../../src/db/shards";
import type { Env } from "../../src/env";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { forgetWhiteLabels } from "../../src/modules/white-label/resolve";
import { request } from "../helpers/http";
import { pollUntil } from "../helpers/poll";
import { createWorld, type World } from "../helpers/seed";
import { createContact, createLocation } from "../links/helpers";
import { callConfirmed, MCP_URL, structured, workerFetch } from "../mcp/helpers";
import { type ConsentChoice, consentInBrowser, MemoryOAuthClient } from "../oauth/helpers";

// Control-only tables (white labels, custom hostnames, role grants...) exist on the control
// database only; a path that read them through a shard-1 tenant's database failed with
// "no such table". Each test runs such a path end to end for a tenant on shard 1, with the
// isolate caches cold so the database is really read.
let w: World;
const HOST = "reviews.shard-one.example";
const worker = (exports as unknown as { default: Fetcher }).default;
const onHost = (path: string, init: RequestInit = {}) =>
  worker.fetch(new Request(`https://${HOST}${path}`, { redirect: "manual", ...init }));

/** A sent review request of the shard-1 tenant, written on shard 1 (the sending module writes it in production). */
async function sentSolicitation() {
  const location = await createLocation(w.as("manager"));
  const contact = await createContact(w.as("manager"));
  const id = newId();
  const claims = { solicitationId: id, tenantId: w.tenantA.id, locationId: location.id };
  const token = await mintLinkToken(env.JWT_SECRET!, { ...claims, destination: "feedback" });
  const now = nowIso();
  await shardDb(env as Env, 1)
    .insert(solicitations)
    .values({
      id,
      tenantId: w.tenantA.id,
      locationId: location.id,
      contactId: contact.id,
      campaignId: null,
      channel: "email",
      status: "SENT",
      shortLinkToken: token,
      destinationUrl: null,
      sentAt: now,
      sequenceStepIndex: null,
      idempotencyKey: id,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    });
  const unsubscribeToken = await mintUnsubscribeToken(env.JWT_SECRET!, {
    tenantId: w.tenantA.id,
    contactId: contact.id,
    channel: "email",
    solicitationId: id,
  });
  return { token, unsubscribeToken };
}

beforeAll(async () => {
  w = await createWorld({ shardA: 1, shardB: 0 });
  const now = nowIso();
  await controlDb(env as Env)
    .insert(customHostnames)
    .values({
      id: newId(),
      scope: "tenant",
      scopeId: w.tenantA.id,
      agencyId: w.agencyA.id,
      hostname: HOST,
      providerId: newId(),
      status: "active",
      sslStatus: "active",
      verification: {},
      ownershipToken: "rops-verify=test",
      verifiedAt: now,
      activatedAt: now,
      lastCheckedAt: now,
      createdAt: now,
      updatedAt: now,
    });
});

/** An MCP client through the real OAuth flow (consent page included), as test/oauth/oauth.test.ts does. */
async function oauthConnect(choice: ConsentChoice) {
  const provider = new MemoryOAuthClient();
  const first = new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider });
  expect(await new Client({ name: "t", version: "1" }).connect(first).catch((e) => e)).toBeInstanceOf(
    UnauthorizedError,
  );
  const consent = await consentInBrowser(provider.authorizationUrl!, choice);
  expect(consent.status, consent.body).toBe(302);
  await first.finishAuth(consent.location!.searchParams.get("code")!);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider }));
  return client;
}

describe("control-only tables for a tenant on shard 1", () => {
  it("GET /v1/templates/{id}/preview: links on the tenant's custom hostname (read on the control database)", async () => {
    const created = await w.as("manager").post("/v1/templates", {
      name: "Ask",
      channel: "email",
      subject: "Hi {{firstName}}",
      bodyHtml: '<p><a href="{{reviewLink}}">review</a> <a href="{{unsubscribeLink}}">stop</a></p>',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    forgetWhiteLabels();
    const res = await w.as("viewer").get(`/v1/templates/${created.body.id}/preview`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.html).toContain(`<a href="https://${HOST}/v1/r/preview?redirect=1">review</a>`);
    expect(res.body.html).toContain(`<a href="https://${HOST}/unsubscribe/preview">stop</a>`);
  });

  it("MCP agent.template-generator over OAuth: a tenant_user saves a draft template on shard 1", async () => {
    // the generator's tools read with the grant's scopes (brand.get, template.tokens), and saving asks first
    const scopes = ["agent:*", "read:locations", "read:campaigns"];
    const client = await oauthConnect({ email: w.users.tenantUser.email, tenantId: w.tenantA.id, scopes });
    const res = await callConfirmed(client, "agent.template-generator", {
      channels: ["sms"],
      create: true,
      name: "Shard one",
    });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    const id = structured(res).output.drafts[0].createdTemplateId as string;
    expect(id).toEqual(expect.any(String));
    const row = await shardDb(env as Env, 1)
      .select()
      .from(templates)
      .where(eq(templates.id, id))
      .get();
    expect(row).toMatchObject({ tenantId: w.tenantA.id, status: "draft", channel: "sms", name: "Shard one (sms)" });
    expect(
      await shardDb(env as Env, 0)
        .select()
        .from(templates)
        .where(eq(templates.id, id)),
    ).toEqual([]);
    // a viewer (no write role) is still refused: the grant check reads real grants
    const viewer = await oauthConnect({ email: w.users.viewer.email, tenantId: w.tenantA.id, scopes });
    const refused = await callConfirmed(viewer, "agent.template-generator", { channels: ["sms"], create: true });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("FORBIDDEN");
  });

  it("public paths on the tenant's custom hostname: short link, feedback page, unsubscribe (white label and host read on the control database)", async () => {
    const { token, unsubscribeToken } = await sentSolicitation();
    forgetWhiteLabels();
    const json = await request("GET", `/v1/r/${token}`);
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(json.body.feedbackUrl).toBe(`https://${HOST}/f/${encodeURIComponent(token)}`);
    forgetWhiteLabels();
    const redirect = await onHost(`/v1/r/${token}?redirect=1`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe(`https://${HOST}/f/${encodeURIComponent(token)}`);
    forgetWhiteLabels();
    const page = await onHost(`/f/${token}`);
    expect(page.status).toBe(200);
    forgetWhiteLabels();
    const unsubscribe = await onHost(`/unsubscribe/${unsubscribeToken}`, { headers: { accept: "application/json" } });
    expect(unsubscribe.status).toBe(200);
    // a host that is not the tenant's refuses its links: the host's owner was really read
    await controlDb(env as Env)
      .update(customHostnames)
      .set({ scopeId: w.tenantB.id, agencyId: w.agencyB.id })
      .where(eq(customHostnames.hostname, HOST));
    forgetWhiteLabels();
    expect((await onHost(`/v1/r/${token}?redirect=1`)).status).toBe(404);
    await controlDb(env as Env)
      .update(customHostnames)
      .set({ scopeId: w.tenantA.id, agencyId: w.agencyA.id })
      .where(eq(customHostnames.hostname, HOST));
    forgetWhiteLabels();
  });

  it("grant checks on the control database: inbox assignment and an alert subscription for another user of the tenant", async () => {
    const location = await createLocation(w.as("manager"));
    const ingested = await w.as("manager").post("/v1/reviews/ingest", {
      locationId: location.id,
      siteType: "google",
      rating: 2,
      text: "slow",
      externalReviewId: newId(),
    });
    expect(ingested.status, JSON.stringify(ingested.body)).toBe(201);
    const item = await pollUntil(
      () =>
        shardDb(env as Env, 1)
          .select()
          .from(inboxItems)
          .where(eq(inboxItems.reviewId, ingested.body.id))
          .get(),
      (r) => r !== undefined,
      10_000,
    );
    const assigned = await w.as("tenantUser").post(`/v1/inbox/${item!.id}/assign`, { userId: w.users.manager.id });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(
      (await shardDb(env as Env, 1)
        .select()
        .from(inboxItems)
        .where(eq(inboxItems.id, item!.id))
        .get())!.assignedToUserId,
    ).toBe(w.users.manager.id);
    const outsider = await w.as("tenantUser").post(`/v1/inbox/${item!.id}/assign`, { userId: w.users.tenantBAdmin.id });
    expect(outsider.status).toBe(400);
    const sub = await w
      .as("manager")
      .post("/v1/alert-subscriptions", { userId: w.users.viewer.id, digestFrequency: "weekly" });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    expect(sub.body.userId).toBe(w.users.viewer.id);
    expect((await w.as("manager").post("/v1/alert-subscriptions", { userId: w.users.tenantBAdmin.id })).status).toBe(
      400,
    );
  });
});
