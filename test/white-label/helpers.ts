import { customHostnames } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { db } from "../helpers/seed";

/** An active custom hostname, as the status sweep leaves it once Cloudflare reports it active and ownership is proven. */
export async function activeHostname(scope: "agency" | "tenant", scopeId: string, agencyId: string, hostname: string) {
  const now = nowIso();
  await db().insert(customHostnames).values({
    id: newId(),
    scope,
    scopeId,
    agencyId,
    hostname,
    providerId: newId(),
    status: "active",
    sslStatus: "active",
    verification: {},
    ownershipToken: "rops-verify=test",
    verifiedAt: now,
    activatedAt: now,
    lastCheckedAt: now,
    createdAt: now,
    updatedAt: now,
  });
}
