import { measure } from "../lib/load.mjs";
import { ensureContacts } from "../lib/seed.mjs";
import { CONTACTS } from "./contacts-list.mjs";

/**
 * Prefix search on the same 100,000 contacts: "olivia sm" matches 1 contact in 400 by name
 * (250 rows; page of 50 plus the matching total).
 */
export default {
  name: "GET /v1/contacts?search=",
  async run({ url, session, db }) {
    await ensureContacts(db, session.tenantId, CONTACTS);
    const path = "/v1/contacts?limit=50&search=olivia%20sm";
    const probe = await fetch(`${url}${path}`, { headers: session.headers }).then((r) => r.json());
    const r = await measure({ url, path, headers: session.headers });
    return { ...r, extra: { matches: probe.total } };
  },
};
