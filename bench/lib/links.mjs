// Shared seeding for the public-link cases: solicitation rows with real signed tokens.
import { BENCH_JWT_SECRET } from "./server.mjs";
import { insertRows, newBenchId, seedLocations } from "./seed.mjs";
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
    const token = await mintLinkToken(BENCH_JWT_SECRET, { solicitationId: id, tenantId, locationId: location.id, destination: destination(i) });
    rows.push({
      id, tenant_id: tenantId, location_id: location.id, contact_id: newBenchId("con"), channel: "email", status: "SENT",
      short_link_token: token, idempotency_key: id, metadata: "{}", sent_at: now, created_at: now, updated_at: now,
    });
  }
  await insertRows(db, "solicitations", Object.keys(rows[0]), rows, 100);
  return rows;
}

/** Each token twice, all first opens before the second ones. */
export function eachTwice(tokens, toPath) {
  const paths = [...tokens, ...tokens].map(toPath);
  let i = 0;
  return () => paths[i++ % paths.length];
}
