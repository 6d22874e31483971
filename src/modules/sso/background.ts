import { lt } from "drizzle-orm";
import type { Sweep } from "../../background/cron";
import type { ControlDb } from "../../db/client";
import { samlAssertions, samlRequests } from "../../db/schema";
import { controlDb } from "../../db/shards";

/** Expired AuthnRequest ids and replay-list entries are no longer needed by any check. */
export async function purgeExpiredSamlRows(db: ControlDb, now: Date) {
  const cutoff = now.toISOString();
  await db.batch([
    db.delete(samlRequests).where(lt(samlRequests.expiresAt, cutoff)),
    db.delete(samlAssertions).where(lt(samlAssertions.expiresAt, cutoff)),
  ]);
}

export const purgeExpiredSamlSweep: Sweep = {
  name: "purge-expired-saml",
  run: (env, now) => purgeExpiredSamlRows(controlDb(env), now),
};
