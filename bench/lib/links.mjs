// Shared seeding for the public-link cases: solicitation rows with real signed tokens.

import { insertRows, newBenchId, seedLocations } from "./seed.mjs";
import { BENCH_JWT_SECRET } from "./server.mjs";
import { loadTokenModule } from "./tokens.mjs";

/** n SENT solicitations spread over `locationCount` new locations; returns their rows (with short_link_token). */
export async function seedSolicitations(db, tenantId, { n, locationCount, destination }) {
  const { mintLinkToken } = await loadTokenModule();
  const locations = await seedLocations(db, tenantId, locationCount);
  const now = new Date().toISOString();
  const rows = [];
  for (let i = 0; i < n; i++) {
    const id = newBenchId("sol");
    const location = locations[i % locationCount];
    const token = await mintLinkToken(BENCH_JWT_SECRET, {
      solicitationId: id,
      tenantId,
      locationId: location.id,
      destination: destination(i),
    });
    rows.push({
      id,
      tenant_id: tenantId,
      location_id: location.id,
      contact_id: newBenchId("con"),
      channel: "email",
      status: "SENT",
      short_link_token: token,
      idempotency_key: id,
      metadata: "{}",
      sent_at: now,
      created_at: now,
      updated_at: now,
    });
  }
  await insertRows(db, "solicitations", Object.keys(rows[0]), rows, 100);
  return rows;
}

/**
 * Each token twice, all first opens before the second ones. With `twoVisitors`, the second opens
 * come with another user agent: a visitor's repeated opens count as one click (docs/links.md, Clicks).
 */
export function eachTwice(tokens, toPath, { twoVisitors = false } = {}) {
  const paths = [...tokens, ...tokens].map(toPath);
  let i = 0;
  if (!twoVisitors) return () => paths[i++ % paths.length];
  return () => {
    const n = i++ % paths.length;
    return {
      path: paths[n],
      headers: { "user-agent": n < tokens.length ? "bench-first-visitor" : "bench-second-visitor" },
    };
  };
}
