import { and, eq } from "drizzle-orm";
import { alertSubscriptions, locations, users } from "../../db/schema";
import { controlDb, tenantDb } from "../../db/shards";
import { assertTenantWritable } from "../../db/tenant-fence";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import type { RequestMeta } from "../../lib/context";
import { notFound } from "../../lib/errors";
import type { HostGuard } from "../../lib/host-guard";
import { jwtSecrets } from "../../lib/jwt";
import { nowIso } from "../../lib/time";
import { maskEmail } from "../links/unsubscribe.service";
import { type AlertEmailKind, readAlertUnsubscribeToken } from "./tokens";

export interface AlertUnsubscribeView {
  kind: AlertEmailKind;
  locationName: string | null;
  address: string | null;
  subscribed: boolean;
  unsubscribedAt: string | null;
}

/**
 * The subscription on the token tenant's shard, its user's address from the control plane (no join
 * across databases). `admit` is the request's host guard: a custom hostname serves only its own tenants.
 */
async function load(env: Env, admit: HostGuard, token: string) {
  const claims = await readAlertUnsubscribeToken(jwtSecrets(env), token);
  if (!claims) throw notFound("Alert subscription");
  await admit(claims.tenantId);
  const db = await tenantDb(env, claims.tenantId);
  const row = await db
    .select({ sub: alertSubscriptions, locationName: locations.name })
    .from(alertSubscriptions)
    .leftJoin(locations, eq(locations.id, alertSubscriptions.locationId))
    .where(and(eq(alertSubscriptions.id, claims.subscriptionId), eq(alertSubscriptions.tenantId, claims.tenantId)))
    .get();
  const user = row
    ? await controlDb(env).select({ email: users.email }).from(users).where(eq(users.id, row.sub.userId)).get()
    : undefined;
  if (!row || !user) throw notFound("Alert subscription");
  return { claims, db, ...row, email: user.email };
}

const view = (
  kind: AlertEmailKind,
  sub: typeof alertSubscriptions.$inferSelect,
  email: string,
  locationName: string | null,
): AlertUnsubscribeView => ({
  kind,
  locationName,
  address: maskEmail(email),
  subscribed: kind === "instant" ? sub.instantEmail : sub.digestFrequency !== "none",
  unsubscribedAt: kind === "instant" ? sub.instantUnsubscribedAt : sub.digestUnsubscribedAt,
});

export async function getAlertUnsubscribe(admit: HostGuard, env: Env, token: string) {
  const { claims, sub, email, locationName } = await load(env, admit, token);
  return view(claims.kind, sub, email, locationName);
}

/**
 * Stops the emails the link was sent with: instant alert emails (instantEmail off) or the digest
 * (digestFrequency none). Repeating it changes nothing. Audited as system/alert-unsubscribe with
 * the request's IP and user agent.
 */
export async function alertUnsubscribe(admit: HostGuard, env: Env, token: string, meta: RequestMeta) {
  const { claims, db, sub, email, locationName } = await load(env, admit, token);
  const current = view(claims.kind, sub, email, locationName);
  if (!current.subscribed) return current;
  await assertTenantWritable(env, sub.tenantId);
  const at = nowIso();
  const set =
    claims.kind === "instant"
      ? { instantEmail: false, instantUnsubscribedAt: at, updatedAt: at }
      : { digestFrequency: "none" as const, nextDigestAt: null, digestUnsubscribedAt: at, updatedAt: at };
  const after = { ...sub, ...set };
  await db.batch([
    db
      .update(alertSubscriptions)
      .set(set)
      .where(and(eq(alertSubscriptions.id, sub.id), eq(alertSubscriptions.tenantId, sub.tenantId))),
    auditStatement(
      { db, actor: { type: "system", name: "alert-unsubscribe" }, meta },
      {
        tenantId: sub.tenantId,
        action: "alert_subscription.unsubscribed",
        resourceType: "alert_subscription",
        resourceId: sub.id,
        previousState: sub,
        nextState: after,
        metadata: { kind: claims.kind },
      },
    ),
  ]);
  return view(claims.kind, after, email, locationName);
}
