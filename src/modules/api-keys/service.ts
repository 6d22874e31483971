import { and, asc, count, eq, gt, isNull, or } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { apiKeys, tenants } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commitControl } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { DEFAULT_API_KEY_SCOPES } from "../identity/scopes";
import { API_KEY_PREFIX, forgetApiKey } from "./authenticator";
import { type CreateApiKeyInput, toApiKey } from "./schemas";

const PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

const live = (ctx: ServiceContext) => and(eq(apiKeys.tenantId, ctx.tenantId), isNull(apiKeys.revokedAt));

export async function createApiKey(ctx: ServiceContext, input: CreateApiKeyInput) {
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row = {
    id: newId(),
    tenantId: ctx.tenantId,
    name: input.name,
    prefix: key.slice(0, PREFIX_LENGTH),
    keyHash: await sha256Hex(key),
    scopes: [...new Set(input.scopes ?? DEFAULT_API_KEY_SCOPES)],
    createdByUserId: ctx.actor.type === "user" ? ctx.actor.userId : null,
    createdAt: nowIso(),
    expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    lastUsedAt: null,
    revokedAt: null,
  };
  const { keyHash: _secret, ...audited } = row;
  await commitControl(ctx, (control) => [control.insert(apiKeys).values(row)], [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "api_key.created",
      resourceType: "api_key",
      resourceId: row.id,
      nextState: audited,
    }),
  ]);
  return { ...toApiKey(row), key };
}

export async function listApiKeys(ctx: ServiceContext, q: PageQuery) {
  const control = ctx.control;
  return keysetPage(control, {
    query: q,
    sort: [apiKeys.createdAt, apiKeys.id],
    rows: (cursor, order, limit) =>
      control
        .select()
        .from(apiKeys)
        .where(and(live(ctx), cursor))
        .orderBy(...order)
        .limit(limit),
    count: control.select({ n: count() }).from(apiKeys).where(live(ctx)),
    key: (k) => [k.createdAt, k.id],
    map: toApiKey,
  });
}

export async function revokeApiKey(ctx: ServiceContext, id: string) {
  const row = await ctx.control
    .select()
    .from(apiKeys)
    .where(and(live(ctx), eq(apiKeys.id, id)))
    .get();
  if (!row) throw notFound("API key");
  const revokedAt = nowIso();
  await commitControl(
    ctx,
    (control) => [
      control
        .update(apiKeys)
        .set({ revokedAt })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, ctx.tenantId))),
    ],
    [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "api_key.revoked",
        resourceType: "api_key",
        resourceId: id,
        previousState: toApiKey(row),
        nextState: { ...toApiKey(row), revokedAt },
      }),
    ],
  );
  forgetApiKey(row.keyHash);
}

/**
 * The keys a person minted that still work (not revoked, not expired), with their tenant's name: a
 * key is the tenant's credential, not a sign-in, so it survives its creator's password change and
 * the "your password was changed" mail names it (docs/sessions.md).
 */
export async function workingKeysCreatedBy(control: ControlDb, userId: string, now = new Date()) {
  return control
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      tenantId: apiKeys.tenantId,
      tenantName: tenants.name,
    })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(
      and(
        eq(apiKeys.createdByUserId, userId),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, nowIso(now))),
      ),
    )
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}
