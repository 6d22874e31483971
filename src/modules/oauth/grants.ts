import type { GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commit } from "../../lib/commit";
import type { Actor, RequestMeta, ServiceContext } from "../../lib/context";
import { forbidden, notFound } from "../../lib/errors";
import { log } from "../../lib/log";
import { DateTime } from "../../lib/openapi";
import { requestMeta } from "../../middleware/service-context";
import { safeLogoUrl } from "../white-label/render";
import { forgetGrantUse, lastUsedByGrant, RECORD_EVERY_MS } from "./last-used";
import { authServer, type GrantMetadata } from "./provider";

export const OAuthGrantSchema = z
  .object({
    id: z.string(),
    clientId: z.string(),
    clientName: z.string().openapi({
      description: "the app's name from its registration (or metadata document): untrusted text, escape it",
    }),
    logoUri: z
      .string()
      .nullable()
      .openapi({ description: "the app's logo (https only) from its registered metadata; untrusted" }),
    scopes: z.array(z.string()),
    tenantId: z
      .string()
      .nullable()
      .openapi({ description: "the tenant the app acts for (the default tenant of an agency session)" }),
    tenantName: z.string().nullable(),
    agencySession: z.boolean(),
    createdAt: DateTime,
    lastUsedAt: DateTime.nullable().openapi({
      description: `the last call to /mcp with one of its tokens, accurate to ${RECORD_EVERY_MS / 60_000} minutes; null if never used`,
    }),
    expiresAt: DateTime.nullable().openapi({
      description: "when the refresh token stops working (30 days after consent)",
    }),
  })
  .openapi("OAuthGrant");

export type OAuthGrant = z.infer<typeof OAuthGrantSchema>;

export const OAuthGrantListSchema = z
  .object({ data: z.array(OAuthGrantSchema), total: z.number().int() })
  .openapi("OAuthGrantList");

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

interface ClientFacts {
  name?: string;
  logoUri: string | null;
}

const toGrant = (g: GrantSummary, client: ClientFacts | undefined, lastUsed: number | undefined): OAuthGrant => {
  const m = (g.metadata ?? {}) as Partial<GrantMetadata>;
  return {
    id: g.id,
    clientId: g.clientId,
    clientName: client?.name || m.clientName || g.clientId,
    logoUri: client?.logoUri ?? null,
    scopes: g.scope,
    tenantId: m.tenantId ?? null,
    tenantName: m.tenantName ?? null,
    agencySession: Boolean(m.agencySession),
    createdAt: iso(g.createdAt),
    lastUsedAt: lastUsed ? iso(lastUsed) : null,
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

const oauthApi = async (env: Env) => (await authServer(env)).getOAuthApi(env);

/**
 * The name and logo each client registered (RFC 7591 client_name, logo_uri), or its metadata
 * document says (CIMD, fetched through the SSRF guard and cached by the library). A client that
 * cannot be looked up keeps the name captured at consent and no logo.
 */
async function clientFacts(oauth: OAuthHelpers, clientIds: string[]): Promise<Map<string, ClientFacts>> {
  const facts = new Map<string, ClientFacts>();
  await Promise.all(
    [...new Set(clientIds)].map(async (id) => {
      try {
        const c = await oauth.lookupClient(id);
        if (c) facts.set(id, { name: c.clientName, logoUri: safeLogoUrl(c.logoUri) });
      } catch (err) {
        log.warn("oauth client lookup failed", { clientId: id, error: String(err) });
      }
    }),
  );
  return facts;
}

/** A user's connected apps (OAuth grants), newest first, whichever tenant each acts for. */
export async function listUserGrantsView(env: Env, userId: string) {
  const oauth = await oauthApi(env);
  const [grants, used] = await Promise.all([allUserGrants(oauth, userId), lastUsedByGrant(env, userId)]);
  const clients = await clientFacts(
    oauth,
    grants.map((g) => g.clientId),
  );
  const data = grants
    .map((g) => toGrant(g, clients.get(g.clientId), used.get(g.id)))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  return { data, total: data.length };
}

/** A user's connected apps as the "your password was changed" mail names them (the hook `connectedApps`, src/wiring.ts). */
export const connectedAppsOf = async (env: Env, userId: string) =>
  (await listUserGrantsView(env, userId)).data.map((g) => ({ clientName: g.clientName, tenantName: g.tenantName }));

/** Who revokes, for the audit row: the signed-in user on a request. */
export interface RevokeSource {
  env: Env;
  actor: Actor;
  meta: RequestMeta;
  defer: (work: Promise<unknown>) => void;
}

/** The signed-in person revoking their own grant on a request (DELETE /me/oauth-grants/{id}, the pages). */
export const ownRevokeSource = (c: Context<AppEnv>, userId: string): RevokeSource => ({
  env: c.env,
  actor: { type: "user", userId, via: "tenant" },
  meta: requestMeta(c),
  defer: (work) => c.executionCtx.waitUntil(work),
});

/**
 * Revokes one of the user's grants: its access and refresh tokens stop working at once (the
 * library deletes the grant and every token of it). Another user's grant id is 404. The audit row
 * goes to the shard of the tenant the grant acted for, so that tenant's audit trail shows it.
 */
export async function revokeUserGrant(src: RevokeSource, userId: string, grantId: string): Promise<OAuthGrant> {
  const oauth = await oauthApi(src.env);
  const grant = (await allUserGrants(oauth, userId)).find((g) => g.id === grantId);
  if (!grant) throw notFound("Grant");
  await oauth.revokeGrant(grantId, userId);
  const dto = toGrant(grant, undefined, undefined);
  await forgetGrantUse(src.env, userId, grantId).catch(() => {});
  const tenantId = dto.tenantId;
  const auditCtx = { ...src, db: await auditDbFor(src.env, tenantId) };
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
  return dto;
}

/** The caller's connected apps (GET /v1/oauth/grants). */
export const listGrants = (ctx: ServiceContext) => listUserGrantsView(ctx.env, callerUserId(ctx));

/** DELETE /v1/oauth/grants/{id}. */
export async function revokeGrant(ctx: ServiceContext, grantId: string): Promise<void> {
  await revokeUserGrant(ctx, callerUserId(ctx), grantId);
}
