import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries } from "../../src/db/schema";
import { processDelivery } from "../../src/modules/outgoing-webhooks/delivery";
import { fanOutEvent } from "../../src/modules/outgoing-webhooks/fanout";
import { setWebhookFetch } from "../../src/modules/outgoing-webhooks/transport";
import { endpoint, event } from "../automation/helpers";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation } from "../reviews/helpers";

// OWASP API7:2023 Server Side Request Forgery: every place a tenant can make the service fetch a URL
// of its choosing, through the REST API, with the private, loopback, link-local and metadata
// targets an attacker would use, in the notations that slip past naive checks.

let w: World;
let locationId: string;
beforeAll(async () => {
  w = await createWorld();
  locationId = (await newLocation(w)).id;
});
afterAll(() => setWebhookFetch());

const INTERNAL_TARGETS = [
  "https://169.254.169.254/latest/meta-data/iam/security-credentials/",
  "https://[::ffff:169.254.169.254]/",
  "https://0xa9fea9fe/",
  "https://metadata.google.internal/computeMetadata/v1/",
  "https://10.0.0.5/admin",
  "https://192.168.1.1/",
  "https://172.16.0.1/",
  "https://100.64.0.1/",
  "https://[fd00::1]/",
  "https://[fe80::1]/",
  "https://0.0.0.0/",
  "https://2130706433/",
  "https://localhost/",
  // IPv6 forms that embed an internal IPv4 address, and spellings the URL parser turns into one (issue #44, item 8)
  "https://[::ffff:0:a9fe:a9fe]/",
  "https://[2001:0:4136:e378:8000:63bf:5601:5601]/",
  "https://[64:ff9b::10.0.0.5]/",
  "https://[2002:c0a8:101::1]/",
  "https://0251.0376.0251.0376/",
  "https://169.254.43518/",
  "https://metadata.google.internal../",
  "http://hooks.example.com/plain-http",
  "https://user:pass@hooks.example.com/",
  "file:///etc/passwd",
  "gopher://hooks.example.com:70/",
];

const refusedOn = (res: { status: number; body: any }, path: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
};

describe("API7 SSRF through the REST API", () => {
  it("webhook subscriptions refuse every internal target on create and on update", async () => {
    const ok = await w
      .as("tenantAdmin")
      .post("/v1/webhooks", { url: "https://hooks.example.com/x", events: ["review.created"] });
    expect(ok.status).toBe(201);
    for (const url of INTERNAL_TARGETS) {
      refusedOn(await w.as("tenantAdmin").post("/v1/webhooks", { url, events: ["review.created"] }), "url");
      refusedOn(await w.as("tenantAdmin").patch(`/v1/webhooks/${ok.body.id}`, { url }), "url");
    }
  });

  it("automation send_webhook actions refuse every internal target", async () => {
    for (const url of INTERNAL_TARGETS) {
      refusedOn(
        await w.as("manager").post("/v1/automation-rules", {
          name: "r",
          triggerEventType: "review.negative",
          locationId,
          actions: [{ type: "send_webhook", config: { url } }],
        }),
        "actions.0.config.url",
      );
    }
  });

  it("sandbox integrations (whose base URL the service fetches) refuse private, link-local and metadata targets", async () => {
    const internal = INTERNAL_TARGETS.filter((u) =>
      /^https:\/\/(169|\[::ffff|\[2001|\[64|\[2002|0xa9|0251|metadata|10\.|192|172|100|\[fd|\[fe|0\.0)/.test(u),
    );
    for (const apiBaseUrl of internal) {
      refusedOn(
        await w.as("tenantAdmin").post("/v1/integrations", {
          connectorType: "hubspot",
          name: "h",
          isSandbox: true,
          config: { apiBaseUrl },
          credentials: { accessToken: "t" },
        }),
        "config.apiBaseUrl",
      );
    }
    const standIn = await w.as("tenantAdmin").post("/v1/integrations", {
      connectorType: "hubspot",
      name: "h",
      isSandbox: true,
      config: { apiBaseUrl: "https://hubspot.stand-in.test" },
      credentials: { accessToken: "t" },
    });
    expect(standIn.status).toBe(201);
    refusedOn(
      await w
        .as("tenantAdmin")
        .patch(`/v1/integrations/${standIn.body.id}`, { config: { apiBaseUrl: "https://169.254.169.254/" } }),
      "config.apiBaseUrl",
    );
  });

  it("a public webhook host that redirects inward is not followed: one request, recorded as failed", async () => {
    const sub = await w
      .as("tenantAdmin")
      .post("/v1/webhooks", { url: "https://hooks.example.com/redirecting", events: ["experiment.completed"] });
    const queued: { tenantId: string; deliveryId: string }[] = [];
    await fanOutEvent(event(w.tenantA.id, "experiment.completed", { experimentId: "e1" }), env as never, db(), {
      sendBatch: async (m: { body: { tenantId: string; deliveryId: string } }[]) =>
        void queued.push(...m.map((x) => x.body)),
    } as never);
    const mine = queued.find((q) => q.tenantId === w.tenantA.id)!;
    for (const location of [
      "http://169.254.169.254/latest/meta-data/",
      "http://127.0.0.1:8787/admin/outbox",
      "http://[::1]/",
    ]) {
      const site = endpoint(() => new Response(null, { status: 307, headers: { location } }));
      await processDelivery(env as never, db(), mine, { fetch: site.fetch });
      expect(site.calls.map((c) => c.url)).toEqual(["https://hooks.example.com/redirecting"]);
      expect(site.calls[0]!.redirect).toBe("manual");
    }
    const row = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, mine.deliveryId)).get();
    expect(row).toMatchObject({ subscriptionId: sub.body.id, responseStatus: 307, error: "redirect 307 not followed" });
  });
});
