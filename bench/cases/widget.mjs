import { load, measure } from "../lib/load.mjs";
import { insertRows, newBenchId, seedLocations } from "../lib/seed.mjs";
import { routeMissing, skipped } from "../lib/skip.mjs";

const REVIEWS = 500;

/**
 * A review widget on a busy website: one widget's script requested over and over (every page view
 * of the host site), served from the isolate and Cache API tiers. The location has 500 reviews over
 * three sites; the widget shows the five newest 4-5 star ones. The JSON form is loaded for 5 s too.
 */
export default {
  name: "GET /w/{key}/embed.js",
  async run({ url, session, db }) {
    if (await routeMissing(url, "/w/probe/embed.js")) return skipped("route not built in this branch");
    const [location] = await seedLocations(db, session.tenantId, 1);
    const now = Date.now();
    const rows = Array.from({ length: REVIEWS }, (_, i) => {
      const at = new Date(now - i * 3_600_000).toISOString();
      return {
        id: newBenchId("rev"),
        tenant_id: session.tenantId,
        location_id: location.id,
        site_type: ["google", "yelp", "first_party"][i % 3],
        rating: 1 + (i % 5),
        text: `Review number ${i}: friendly staff, short wait.`,
        author_name: `Customer ${i}`,
        topics: "[]",
        status: "new",
        is_first_party: i % 3 === 2 ? 1 : 0,
        is_public: 1,
        occurred_at: at,
        created_at: at,
        updated_at: at,
      };
    });
    await insertRows(db, "reviews", Object.keys(rows[0]), rows, 100);
    const res = await fetch(`${url}/v1/widgets`, {
      method: "POST",
      headers: { ...session.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench homepage", locationId: location.id, minRating: 4, count: 5 }),
    });
    if (res.status !== 201) throw new Error(`widget: ${res.status} ${await res.text()}`);
    const { publicKey } = await res.json();
    const script = await measure({ url, path: `/w/${publicKey}/embed.js` });
    const json = await load({ url, path: `/w/${publicKey}/reviews`, connections: 50, duration: 5 });
    return { ...script, extra: { "JSON req/s": json.rps, "JSON p50 ms": json.p50, "JSON non-2xx": json.non2xx } };
  },
};
