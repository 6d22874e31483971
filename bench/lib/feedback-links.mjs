import { BENCH_JWT_SECRET, mintLinkToken } from "./link-token.mjs";

const LINKS = 1000;
let prepared;

/**
 * One location with Google and Yelp ids, a contact and LINKS solicitation rows written straight to
 * D1, each with its own signed token; shared by the feedback landing and page cases.
 */
export function feedbackLinks({ url, session, mf }) {
  prepared ??= (async () => {
    const post = (path, body) =>
      fetch(`${url}${path}`, { method: "POST", headers: { ...session.headers, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
    const location = await post("/v1/locations", { name: "Bench Feedback Store", city: "Springfield", googlePlaceId: "ChIJ-bench", yelpBusinessId: "bench-store" });
    const contact = await post("/v1/contacts", { email: "feedback-bench@example.test" });
    const db = await mf.getD1Database("DB");
    const now = new Date().toISOString();
    const tokens = [];
    for (let i = 0; i < LINKS; i++) {
      const id = `bench_fb_${i}`;
      const token = mintLinkToken(BENCH_JWT_SECRET, { solicitationId: id, tenantId: session.tenantId, locationId: location.id, destination: "feedback" });
      tokens.push({ id, token });
    }
    for (let i = 0; i < tokens.length; i += 10) {
      await db.batch(
        tokens.slice(i, i + 10).map(({ id, token }) =>
          db
            .prepare(`insert or ignore into solicitations (id, tenant_id, location_id, contact_id, channel, status, short_link_token, metadata, created_at, updated_at) values (?, ?, ?, ?, 'email', 'SENT', ?, '{}', ?, ?)`)
            .bind(id, session.tenantId, location.id, contact.id, token, now, now),
        ),
      );
    }
    return tokens.map((t) => t.token);
  })();
  return prepared;
}

/** Cycles through the tokens so every request names a different link. */
export const cycling = (tokens, prefix) => {
  let i = 0;
  return () => `${prefix}${tokens[i++ % tokens.length]}`;
};
