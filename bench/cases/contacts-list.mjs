import { measure } from "../lib/load.mjs";
import { ensureContacts } from "../lib/seed.mjs";

export const CONTACTS = 100_000;

/** Keyset page of a tenant holding 100,000 contacts (seeded straight into D1). */
export default {
  name: "GET /v1/contacts?limit=50",
  async run({ url, session, db }) {
    await ensureContacts(db, session.tenantId, CONTACTS);
    return measure({ url, path: "/v1/contacts?limit=50", headers: session.headers });
  },
};
