import { load } from "../lib/load.mjs";

/*
 * The console's pages rendered on the server (#45 "Budgets": each under 50 ms p50; #46's pages in the same
 * layout under the same budget), signed in as the bootstrap admin (a platform admin: it reaches every tenant
 * page, the agency's and the platform's) over a tenant with a review, a reply waiting for approval and its
 * inbox item, a contact, a template and a campaign. One connection per page, so each figure is one page's own render (after a
 * warm-up of its own, so the first page does not carry the isolate's JIT); the table gives p50, p95 and p99 per
 * page, the row's figures are the slowest page's, and `over 50 ms p50` names any page past the budget.
 */
const BUDGET_MS = 50;
const PASSWORD = "bench-password-1";
const REQUESTS = 100;
const WARMUP = 10;

async function json(url, session, path, body) {
  const res = await fetch(`${url}${path}`, {
    method: body ? "POST" : "GET",
    headers: { ...session.headers, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The console's session cookie, from its own sign-in form (same-origin post, as a browser sends it). */
async function signIn(url, email) {
  const res = await fetch(`${url}/app/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
    body: new URLSearchParams({ email, password: PASSWORD }),
  });
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => /^(__Host-)?session=/.test(c));
  if (res.status !== 303 || !cookie) throw new Error(`console sign-in: ${res.status}`);
  return cookie;
}

export default {
  name: "console pages (GET, signed in)",
  async run({ url, session }) {
    const place = await json(url, session, "/v1/locations", { name: "Bench Quay" });
    const review = await json(url, session, "/v1/reviews/ingest", {
      locationId: place.id,
      siteType: "google",
      rating: 2,
      text: "Slow at the front desk, kind staff.",
      authorName: "Bench Reviewer",
    });
    const reply = await json(url, session, `/v1/reviews/${review.id}/responses`, { text: "Thank you." });
    await json(url, session, `/v1/responses/${reply.id}/submit`, {});
    let item;
    for (let i = 0; i < 100 && !item; i++) {
      item = (await json(url, session, `/v1/inbox?locationId=${place.id}`)).data[0];
      if (!item) await new Promise((r) => setTimeout(r, 100));
    }
    if (!item) throw new Error("the review's inbox item never appeared");
    const contact = await json(url, session, "/v1/contacts", { email: "jane.bench@example.com", firstName: "Jane" });
    const template = await json(url, session, "/v1/templates", {
      name: "After a visit",
      channel: "email",
      subject: "How was your visit?",
      bodyText: "Hello {{firstName}}, tell us: {{reviewLink}}",
    });
    const campaign = await json(url, session, "/v1/campaigns", {
      name: "After a visit",
      type: "continuous",
      channels: ["email"],
      reviewDestination: "google",
      locationId: place.id,
    });
    const cookie = await signIn(url, "bench@example.test");
    const t = `/app/t/${session.tenantId}`;
    const pages = {
      home: t,
      inbox: `${t}/inbox`,
      "inbox item": `${t}/inbox/${item.id}?type=review`,
      approvals: `${t}/approvals`,
      reviews: `${t}/reviews`,
      review: `${t}/reviews/${review.id}`,
      settings: `${t}/settings`,
      team: `${t}/team`,
      "api keys": `${t}/api-keys`,
      audit: `${t}/audit`,
      // #46: running the account
      requests: `${t}/requests`,
      campaigns: `${t}/campaigns`,
      campaign: `${t}/campaigns/${campaign.id}`,
      templates: `${t}/templates`,
      template: `${t}/templates/${template.id}`,
      experiments: `${t}/experiments`,
      "sent requests": `${t}/solicitations`,
      contacts: `${t}/contacts`,
      contact: `${t}/contacts/${contact.id}`,
      "contacts import": `${t}/contacts/import`,
      compliance: `${t}/compliance`,
      locations: `${t}/locations`,
      location: `${t}/locations/${place.id}`,
      integrations: `${t}/integrations`,
      messaging: `${t}/messaging`,
      "review links": `${t}/review-links`,
      widgets: `${t}/widgets`,
      alerts: `${t}/alerts`,
      webhooks: `${t}/webhooks`,
      automation: `${t}/automation`,
      sso: `${t}/sso`,
      "white label": `${t}/white-label`,
      "data export": `${t}/data-export`,
      me: "/app/me",
      tenants: "/app/tenants",
      agency: "/app/agency",
      platform: "/app/platform",
      "platform tenants": "/app/platform/tenants",
      "dead letters": "/app/platform/dead-letters",
    };
    const perPage = {};
    let worst = null;
    let requests = 0;
    let non2xx = 0;
    let cpuUs = 0;
    for (const [name, path] of Object.entries(pages)) {
      await load({ url, path, headers: { cookie }, connections: 1, amount: WARMUP });
      const r = await load({ url, path, headers: { cookie }, connections: 1, amount: REQUESTS });
      perPage[name] = {
        "p50 ms": r.p50,
        "p95 ms": r.p95,
        "p99 ms": r.p99,
        "cpu µs/req": r.cpuUs,
        "non-2xx": r.non2xx,
      };
      requests += r.requests;
      non2xx += r.non2xx;
      cpuUs += r.cpuUs;
      if (!worst || r.p50 > worst.p50) worst = { ...r, name };
    }
    console.table(perPage);
    const over = Object.entries(perPage)
      .filter(([, r]) => r["p50 ms"] > BUDGET_MS)
      .map(([n]) => n);
    return {
      rps: worst.rps,
      p50: worst.p50,
      p99: worst.p99,
      p50At1: worst.p50,
      cpuUs: Math.round(cpuUs / Object.keys(pages).length),
      requests,
      non2xx,
      // each page's own figures, kept in bench/results.json
      pages: perPage,
      extra: { slowest: worst.name, [`over ${BUDGET_MS} ms p50`]: over.length ? over.join(", ") : "none" },
    };
  },
};
