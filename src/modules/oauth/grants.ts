import type { GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { z } from "@hono/zod-openapi";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { forbidden, notFound } from "../../lib/errors";
import { DateTime } from "../../lib/openapi";
import { authServer, type GrantMetadata } from "./provider";

export const OAuthGrantSchema = z
  .object({
    id: z.string(),
    clientId: z.string(),
    clientName: z.string(),
    scopes: z.array(z.string()),
    tenantId: z
      .string()
      .nullable()
      .openapi({ description: "the tenant the app acts for (the default tenant of an agency session)" }),
    tenantName: z.string().nullable(),
    agencySession: z.boolean(),
    createdAt: DateTime,
    expiresAt: DateTime.nullable().openapi({
      description: "when the refresh token stops working (30 days after consent)",
    }),
  })
  .openapi("OAuthGrant");

export type OAuthGrant = z.infer<typeof OAuthGrantSchema>;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

const toGrant = (g: GrantSummary): OAuthGrant => {
  const m = (g.metadata ?? {}) as Partial<GrantMetadata>;
  return {
    id: g.id,
    clientId: g.clientId,
    clientName: m.clientName ?? g.clientId,
    scopes: g.scope,
    tenantId: m.tenantId ?? null,
    tenantName: m.tenantName ?? null,
    agencySession: Boolean(m.agencySession),
    createdAt: iso(g.createdAt),
    expiresAt: g.expiresAt ? iso(g.expiresAt) : null,
  };
};

const callerUserId = (ctx: ServiceContext) => {
  if (ctx.actor.type !== "user") throw forbidden("Connected apps belong to users; sign in as a user");
  return ctx.actor.userId;
};

/** Every grant of a user, all pages. */
export async function allUserGrants(oauth: OAuthHelpers, userId: string): Promise<GrantSummary[]> {
  const out: GrantSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(userId, { cursor, limit: 1000 });
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

const userGrants = async (ctx: ServiceContext, userId: string) =>
  allUserGrants((await authServer(ctx.env)).getOAuthApi(ctx.env), userId);

/** The caller's connected apps (OAuth grants), newest first, whichever tenant each acts for. */
export async function listGrants(ctx: ServiceContext) {
  const grants = await userGrants(ctx, callerUserId(ctx));
  const data = grants.map(toGrant).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  return { data, total: data.length };
}

/** Revokes one of the caller's grants: its access and refresh tokens stop working at once. */
export async function revokeGrant(ctx: ServiceContext, grantId: string): Promise<void> {
  const userId = callerUserId(ctx);
  const grant = (await userGrants(ctx, userId)).find((g) => g.id === grantId);
  if (!grant) throw notFound("Grant");
  await (await authServer(ctx.env)).getOAuthApi(ctx.env).revokeGrant(grantId, userId);
  const dto = toGrant(grant);
  // the grant may act for another tenant (of an agency session): its row goes to that tenant's shard
  const tenantId = dto.tenantId ?? ctx.tenantId;
  const auditCtx = tenantId === ctx.tenantId ? ctx : { ...ctx, db: await auditDbFor(ctx.env, tenantId) };
  await commit(auditCtx, [
    auditStatement(auditCtx, {
      tenantId,
      action: "oauth_grant.revoked",
      resourceType: "oauth_grant",
      resourceId: grantId,
      previousState: dto,
      metadata: { oauthClientId: grant.clientId },
    }),
  ]);
}
