import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { alertSubscriptions, reviews, webhookDeliveries } from "../../src/db/schema";
import { sendDueDigests } from "../../src/modules/alerts/digest-sweep";
import { alertOnReview } from "../../src/modules/alerts/instant";
import { event } from "../automation/helpers";
import { ConsoleBrowser, textOf } from "../console/helpers";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { eventually } from "../inbox/helpers";
import { connect, structured } from "../mcp/helpers";
import { ingest, newLocation } from "../reviews/helpers";
import { emailsTo, seedReviewAt, sendsOf, subscribe, unsubscribeToken } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const DAY = 86_400_000;

describe("alert subscriptions: REST resource", () => {
  it("a viewer subscribes themself; the zone defaults to the location's; the next digest is at the local hour", async () => {
    const loc = await newLocation(w, "manager", { timezone: "America/Chicago" });
    const sub = await subscribe(w, "viewer", {
      locationId: loc.id,
      maxRating: 2,
      digestFrequency: "daily",
      digestHour: 8,
    });
    expect(sub).toMatchObject({
      userId: w.users.viewer.id,
      locationId: loc.id,
      timeZone: "America/Chicago",
      instantEmail: true,
      maxRating: 2,
      digestFrequency: "daily",
    });
    const next = new Date(sub.nextDigestAt!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(DAY);
    // 08:00 in Chicago (CST in late November) is 14:00 UTC
    expect(
      new Intl.DateTimeFormat("en-US", {
        timeZone: "America/Chicago",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).format(next),
    ).toBe("08:00");

    const patched = await w.as("viewer").patch(`/v1/alert-subscriptions/${sub.id}`, {
      digestFrequency: "weekly",
      digestWeekday: 5,
      keywords: ["Rude", "rude"],
    });
    expect(patched.body).toMatchObject({ digestFrequency: "weekly", digestWeekday: 5, keywords: ["rude"] });
    expect(new Date(patched.body.nextDigestAt).getUTCDay()).toBe(5);
    expect((await w.as("viewer").get("/v1/alert-subscriptions")).body.data.map((s: { id: string }) => s.id)).toContain(
      sub.id,
    );
    expect((await w.as("viewer").delete(`/v1/alert-subscriptions/${sub.id}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/alert-subscriptions/${sub.id}`)).status).toBe(404);
  });

  it("another user's subscription: managers may, others may not; the recipient must belong to the tenant", async () => {
    const forUser = await w.as("tenantUser").post("/v1/alert-subscriptions", { userId: w.users.viewer.id });
    expect(forUser.status).toBe(403);
    const byManager = await subscribe(w, "manager", { userId: w.users.viewer.id, digestFrequency: "weekly" });
    expect(byManager.userId).toBe(w.users.viewer.id);
    // the viewer sees it (it is theirs); the tenant user does not
    expect((await w.as("viewer").get(`/v1/alert-subscriptions/${byManager.id}`)).status).toBe(200);
    expect((await w.as("tenantUser").get(`/v1/alert-subscriptions/${byManager.id}`)).status).toBe(404);
    expect(
      (await w.as("tenantUser").patch(`/v1/alert-subscriptions/${byManager.id}`, { instantEmail: false })).status,
    ).toBe(404);
    const outsider = await w.as("manager").post("/v1/alert-subscriptions", { userId: w.users.tenantBAdmin.id });
    expect(outsider.status).toBe(400);
    expect(outsider.body.details.issues[0].path).toBe("userId");
  });

  it("validation: nothing to deliver, another tenant's location or webhook, a bad zone or hour", async () => {
    const locB = await newLocation(w, "tenantBAdmin");
    const hookB = await w
      .as("tenantBAdmin")
      .post("/v1/webhooks", { url: "https://hooks.example.com/b", events: ["review.created"] });
    const path = async (body: Record<string, unknown>) => {
      const res = await w.as("manager").post("/v1/alert-subscriptions", body);
      expect(res.status).toBe(400);
      return res.body.details.issues[0].path;
    };
    expect(await path({ instantEmail: false })).toBe("instantEmail");
    expect(await path({ locationId: locB.id })).toBe("locationId");
    expect(await path({ webhookId: hookB.body.id })).toBe("webhookId");
    expect(await path({ timeZone: "Mars/Olympus" })).toBe("timeZone");
    expect(await path({ digestFrequency: "daily", digestHour: 24 })).toBe("digestHour");
  });

  it("another tenant's subscription is 404 on every route", async () => {
    const b = await subscribe(w, "tenantBAdmin", { digestFrequency: "daily" });
    for (const [method, path] of [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["GET", "/sends"],
    ] as const) {
      const res = await w
        .as("tenantAdmin")
        [method === "GET" ? "get" : method === "PATCH" ? "patch" : "delete"](`/v1/alert-subscriptions/${b.id}${path}`, {
          instantEmail: false,
        } as never);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe("instant alerts", () => {
  it("a review at or under maxRating with a keyword emails the subscriber once, with a one-click unsubscribe", async () => {
    const loc = await newLocation(w, "manager", { name: "Riverside" });
    const sub = await subscribe(w, "tenantUser", {
      locationId: loc.id,
      maxRating: 2,
      keywords: ["rude"],
      siteTypes: ["google"],
    });
    const to = w.users.tenantUser.email;
    const high = await ingest(w, {
      locationId: loc.id,
      siteType: "google",
      externalReviewId: `h-${Math.random()}`,
      rating: 5,
      text: "Rude? Never, lovely",
    });
    const noKeyword = await ingest(w, {
      locationId: loc.id,
      siteType: "google",
      externalReviewId: `n-${Math.random()}`,
      rating: 1,
      text: "Slow",
    });
    const yelp = await ingest(w, {
      locationId: loc.id,
      siteType: "yelp",
      externalReviewId: `y-${Math.random()}`,
      rating: 1,
      text: "Rude staff",
    });
    const match = await ingest(w, {
      locationId: loc.id,
      siteType: "google",
      externalReviewId: `m-${Math.random()}`,
      rating: 2,
      text: "The receptionist was rude to my mother",
      authorName: "Pat Lee",
    });
    const sends = await eventually(
      () => sendsOf(sub.id),
      (rows) => rows.some((r) => r.status === "sent"),
    );
    expect(sends.map((s) => [s.key, s.kind, s.status])).toEqual([[`review:${match.id}`, "instant", "sent"]]);
    for (const r of [high, noKeyword, yelp]) expect(sends.some((s) => s.key === `review:${r.id}`)).toBe(false);
    const mails = await emailsTo(to);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.subject).toBe("New review for Riverside: 2 of 5 stars on google");
    expect(mail.text).toContain('"The receptionist was rude to my mother"');
    expect(mail.html).toContain('<html lang="en">');
    expect(mail.html).toContain('<span aria-hidden="true">★★☆☆☆</span> <span>2 of 5 stars</span>');
    expect(mail.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    // the mail links to the review's item in the console (#45 item 5), which opens for the subscriber
    const itemUrl = `${env.PUBLIC_BASE_URL}/app/t/${w.tenantA.id}/inbox/${match.id}?type=review`;
    expect(mail.text).toContain(`Answer it in the console: ${itemUrl}`);
    expect(mail.html).toContain(`href="${itemUrl.replace("&", "&amp;")}"`);
    const reader = new ConsoleBrowser();
    await reader.signIn(to);
    const item = await eventually(
      () => reader.get(new URL(itemUrl).pathname + new URL(itemUrl).search),
      (p) => p.status === 200,
    );
    expect(textOf(item.text)).toContain("The receptionist was rude to my mother");
    // a second run of the handler (a redelivered event) sends nothing more
    expect(await alertOnReview(env, db(), event(w.tenantA.id, "review.created", { reviewId: match.id }))).toBe(0);
    expect(await emailsTo(to)).toHaveLength(1);

    // the one-click POST turns instant emails off; later reviews no longer email
    const token = unsubscribeToken(mail.headers);
    const state = await request("GET", `/alerts/unsubscribe/${token}`, { headers: { accept: "application/json" } });
    expect(state.body).toEqual({
      kind: "instant",
      locationName: "Riverside",
      address: expect.stringMatching(/^\w{1,2}\*\*\*@example\.test$/),
      subscribed: true,
      unsubscribedAt: null,
    });
    const form = new URLSearchParams({ "List-Unsubscribe": "One-Click" });
    const done = await request("POST", `/alerts/unsubscribe/${token}`, {
      body: form.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    });
    expect(done.body).toMatchObject({ subscribed: false, unsubscribedAt: expect.any(String) });
    expect((await w.as("tenantUser").get(`/v1/alert-subscriptions/${sub.id}`)).body).toMatchObject({
      instantEmail: false,
      instantUnsubscribedAt: done.body.unsubscribedAt,
    });
    expect(
      (await request("GET", `/alerts/unsubscribe/${token.slice(0, -2)}xx`, { headers: { accept: "application/json" } }))
        .status,
    ).toBe(404);
  });

  it("posts to the subscription's webhook as review.alert, once per review", async () => {
    const loc = await newLocation(w);
    const hook = await w
      .as("tenantAdmin")
      .post("/v1/webhooks", { url: "https://hooks.example.com/alerts", events: ["experiment.completed"] });
    expect(hook.status).toBe(201);
    const sub = await subscribe(w, "manager", { locationId: loc.id, instantEmail: false, webhookId: hook.body.id });
    // written straight to D1, so only this call (not the event consumer) handles it
    const review = await seedReviewAt(w.tenantA.id, loc.id, new Date().toISOString(), {
      rating: 1,
      text: "Never again",
    });
    const queued: unknown[] = [];
    const sink = { sendBatch: async (m: { body: unknown }[]) => void queued.push(...m.map((x) => x.body)) };
    const e = event(w.tenantA.id, "review.created", { reviewId: review.id, locationId: loc.id });
    // (tenant-wide subscriptions of other tests alert on it too)
    expect(await alertOnReview(env, db(), e, sink)).toBeGreaterThanOrEqual(1);
    expect(await alertOnReview(env, db(), e, sink)).toBe(0);
    const rows = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, hook.body.id));
    expect(rows).toHaveLength(1);
    expect(queued).toEqual([{ tenantId: w.tenantA.id, deliveryId: rows[0]!.id }]);
    expect(rows[0]).toMatchObject({
      eventType: "review.alert",
      eventId: `evt_alert_${sub.id}_${review.id}`,
      status: "pending",
    });
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({
      type: "review.alert",
      tenantId: w.tenantA.id,
      data: { alertSubscriptionId: sub.id, reviewId: review.id, rating: 1, text: "Never again" },
    });
    expect((await sendsOf(sub.id))[0]!.summary).toEqual({ reviewId: review.id, email: false, webhook: true });
  });

  it("a synced review older than a week (a first sync's backlog) raises no alert", async () => {
    const loc = await newLocation(w);
    const sub = await subscribe(w, "manager", { locationId: loc.id });
    const old = await seedReviewAt(w.tenantA.id, loc.id, new Date().toISOString(), { rating: 1 });
    await db()
      .update(reviews)
      .set({ occurredAt: new Date(Date.now() - 8 * DAY).toISOString() })
      .where(eq(reviews.id, old.id));
    expect(await alertOnReview(env, db(), event(w.tenantA.id, "review.created", { reviewId: old.id }))).toBe(0);
    expect(await sendsOf(sub.id)).toEqual([]);
  });
});

describe("digests", () => {
  it("reports new reviews, the rating trend, responses due and SLA breaches of the period, once", async () => {
    const loc = await newLocation(w, "manager", { name: "Uptown", timezone: "UTC" });
    const other = await newLocation(w, "manager", { timezone: "UTC" });
    const sub = await subscribe(w, "manager", {
      locationId: loc.id,
      instantEmail: false,
      digestFrequency: "daily",
      digestHour: 6,
    });
    // the digest due tomorrow 06:00 UTC covers [today 06:00, tomorrow 06:00)
    const today = new Date().toISOString().slice(0, 10);
    const at = (day: number, hour: number) =>
      new Date(Date.parse(`${today}T00:00:00Z`) + day * DAY + hour * 3_600_000).toISOString();
    await seedReviewAt(w.tenantA.id, loc.id, at(0, 7), { rating: 5, text: "Wonderful team" });
    await seedReviewAt(w.tenantA.id, loc.id, at(0, 9), { rating: 2, text: "Waited an hour", escalatedAt: at(0, 13) });
    await seedReviewAt(w.tenantA.id, loc.id, at(0, 10), { rating: 5, text: null, status: "responded" });
    await seedReviewAt(w.tenantA.id, loc.id, at(-1, 8), { rating: 3, text: "Okay", status: "responded" }); // the period before
    await seedReviewAt(w.tenantA.id, other.id, at(0, 8), { rating: 1, text: "Other place" }); // out of scope
    await db()
      .update(alertSubscriptions)
      .set({ nextDigestAt: at(1, 6) })
      .where(eq(alertSubscriptions.id, sub.id));

    // other tests' subscriptions may fall due too (which depends on the hour the suite runs): count this one's sends
    await sendDueDigests(env, db(), new Date(at(1, 5)));
    expect(await sendsOf(sub.id)).toEqual([]);
    const now = new Date(Date.parse(at(1, 6)) + 2 * 60_000);
    await Promise.all([sendDueDigests(env, db(), now), sendDueDigests(env, db(), now)]);
    const sends = await sendsOf(sub.id);
    expect(sends).toHaveLength(1);
    expect(sends[0]).toMatchObject({
      key: `daily:${at(1, 0).slice(0, 10)}`,
      kind: "digest",
      status: "sent",
      periodStart: at(0, 6),
      periodEnd: at(1, 6),
      summary: { newReviews: 3, averageRating: 4, ratingChange: 1, unanswered: 2, awaitingApproval: 0, slaBreaches: 1 },
    });
    const mails = await emailsTo(w.users.manager.email);
    const digest = mails.find((m) => m.subject?.startsWith("Daily review digest: Uptown"))!;
    expect(digest.text).toContain("* 3 new reviews");
    expect(digest.text).toContain("Average rating 4.00, up 1.00 from 3.00 the period before.");
    expect(digest.text).toContain("* 1 SLA breach");
    expect(digest.text).not.toContain("Other place");
    expect(digest.html).toContain(
      '<caption style="text-align:left;font-weight:600;padding:4px 0">New reviews</caption>',
    );
    expect(digest.html).toContain('<th scope="col"');
    expect(digest.html).toContain("Waited an hour");
    expect(digest.headers["List-Unsubscribe"]).toMatch(/^<http.+\/alerts\/unsubscribe\/.+>$/);
    // the next one is the following day's
    const after = (await db().select().from(alertSubscriptions).where(eq(alertSubscriptions.id, sub.id)).get())!;
    expect(after.nextDigestAt).toBe(at(2, 6));
    // its unsubscribe link stops the digest
    const done = await request("POST", `/alerts/unsubscribe/${digestToken(digest.headers)}`, {
      headers: { accept: "application/json" },
    });
    expect(done.body).toMatchObject({ kind: "digest", subscribed: false });
    expect(await db().select().from(alertSubscriptions).where(eq(alertSubscriptions.id, sub.id)).get()).toMatchObject({
      digestFrequency: "none",
      nextDigestAt: null,
    });
  });
});

const digestToken = unsubscribeToken;

describe("MCP", () => {
  it("review.alert-subscriptions lists the tenant's subscriptions to a read:reviews key, not another tenant's", async () => {
    const mine = await subscribe(w, "tenantAdmin", { digestFrequency: "weekly" });
    const theirs = await subscribe(w, "tenantBAdmin", { digestFrequency: "weekly" });
    const key = await w.as("tenantAdmin").post("/v1/api-keys", { name: "mcp", scopes: ["read:reviews"] });
    const { client } = await connect({ token: key.body.key });
    const out = structured(
      await client.callTool({ name: "review.alert-subscriptions", arguments: { userId: w.users.tenantAdmin.id } }),
    );
    const ids = out.data.map((s: { id: string }) => s.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    expect(out.data.find((s: { id: string }) => s.id === mine.id)).toMatchObject({
      digestFrequency: "weekly",
      userId: w.users.tenantAdmin.id,
    });
  });
});
