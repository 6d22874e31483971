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

/** A real 1x1 PNG (its signature and chunks), for logo uploads. */
export const PNG_1PX = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (ch) => ch.charCodeAt(0),
);

/** The multipart form of a logo upload. */
export function logoForm(bytes: Uint8Array | string = PNG_1PX, name = "logo.png", type = "image/png") {
  const f = new FormData();
  f.append("file", new File([bytes], name, { type }));
  return f;
}
