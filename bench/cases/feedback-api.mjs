import { eachTwice, seedSolicitations } from "../lib/links.mjs";
import { load } from "../lib/load.mjs";
import { routeMissing, skipped } from "../lib/skip.mjs";

const TOKENS = 10_000;

/** The hosted feedback landing data (JSON), over 10,000 distinct feedback links each opened twice. */
export default {
  name: "GET /v1/f/{token}",
  async run({ url, session, db }) {
    // the app answers "No route" for a route that does not exist, whatever the token
    if (await routeMissing(url, `/v1/f/probe-token`))
      return skipped("route not built in this branch (feedback pages are another helper's work)");
    const rows = await seedSolicitations(db, session.tenantId, {
      n: TOKENS,
      locationCount: 50,
      destination: () => "feedback",
    });
    const tokens = rows.map((r) => r.short_link_token);
    const split = Math.floor(TOKENS * 0.85);
    const loaded = await load({
      url,
      path: eachTwice(tokens.slice(0, split), (t) => `/v1/f/${t}`),
      connections: 50,
      amount: split * 2,
    });
    const single = await load({
      url,
      path: eachTwice(tokens.slice(split), (t) => `/v1/f/${t}`),
      connections: 1,
      amount: (TOKENS - split) * 2,
    });
    return {
      rps: loaded.rps,
      p50: loaded.p50,
      p99: loaded.p99,
      p50At1: single.p50,
      cpuUs: loaded.cpuUs,
      requests: loaded.requests + single.requests,
      non2xx: loaded.non2xx + single.non2xx,
    };
  },
};
