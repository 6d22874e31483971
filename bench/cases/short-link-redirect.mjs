import { eachTwice, seedSolicitations } from "../lib/links.mjs";
import { load } from "../lib/load.mjs";
import { waitFor } from "../lib/seed.mjs";

const TOKENS = 10_000;
const LOCATIONS = 50;
const LOADED_SHARE = 8_500; // tokens for the 50-connection run; the rest for the 1-connection run

/**
 * The hottest path: 10,000 distinct short links across 50 locations, each opened exactly twice
 * (real links are opened once or twice, so a per-token cache cannot help). Then every click must
 * reach D1 through the clicks queue: requests (302s) are compared with click rows recorded.
 */
export default {
  name: "GET /v1/r/{token}?redirect=1",
  async run({ url, session, db }) {
    const rows = await seedSolicitations(db, session.tenantId, {
      n: TOKENS,
      locationCount: LOCATIONS,
      destination: (i) => (i % 5 === 0 ? "yelp" : "auto"),
    });
    // two visitors per link (the second opens with another user agent), so every 302 is a counted click
    const twice = (tokens) => eachTwice(tokens, (t) => `/v1/r/${t}?redirect=1`, { twoVisitors: true });
    const loadedTokens = rows.slice(0, LOADED_SHARE).map((r) => r.short_link_token);
    const singleTokens = rows.slice(LOADED_SHARE).map((r) => r.short_link_token);
    const loaded = await load({ url, path: twice(loadedTokens), connections: 50, amount: loadedTokens.length * 2 });
    const single = await load({ url, path: twice(singleTokens), connections: 1, amount: singleTokens.length * 2 });

    const redirects = loaded.status3xx + single.status3xx;
    const count = async () =>
      (await db.prepare("select count(*) as n from link_clicks where tenant_id = ?").bind(session.tenantId).first()).n;
    const [, drainSeconds] = await waitFor(async () => (await count()) >= redirects, 120_000);
    const recorded = await count();
    const clicked = (
      await db
        .prepare("select count(*) as n from solicitations where tenant_id = ? and clicked_at is not null")
        .bind(session.tenantId)
        .first()
    ).n;
    return {
      rps: loaded.rps,
      p50: loaded.p50,
      p99: loaded.p99,
      p50At1: single.p50,
      cpuUs: loaded.cpuUs,
      requests: loaded.requests + single.requests,
      non2xx: loaded.requests + single.requests - redirects,
      extra: {
        "302s": redirects,
        "clicks recorded": recorded,
        "solicitations clicked": clicked,
        "all clicks in D1 after s": +drainSeconds.toFixed(1),
      },
    };
  },
};
