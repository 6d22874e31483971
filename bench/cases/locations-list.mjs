import { measure } from "../lib/load.mjs";

/** An authenticated, tenant-scoped, keyset-paged list over 1,000 locations. */
export default {
  name: "GET /v1/locations?limit=50",
  async run({ url, session }) {
    const res = await fetch(`${url}/v1/locations?limit=1`, { headers: session.headers });
    if ((await res.json()).total < 1000) {
      for (let i = 0; i < 1000; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) =>
            fetch(`${url}/v1/locations`, {
              method: "POST",
              headers: { ...session.headers, "content-type": "application/json" },
              body: JSON.stringify({ name: `Store ${i + j}`, city: "Springfield" }),
            }),
          ),
        );
      }
    }
    return measure({ url, path: "/v1/locations?limit=50", headers: session.headers });
  },
};
