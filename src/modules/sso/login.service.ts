import { randomBytes } from "node:crypto";
import type { Profile } from "@node-saml/node-saml";
import { and, eq, inArray } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { samlAssertions, ssoConfigs, tenants } from "../../db/schema";
import { tenantDb } from "../../db/shards";
import { auditStatement } from "../../lib/audit";
import { decodeBase64Text } from "../../lib/base64";
import { commitControl } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { ApiError, notFound } from "../../lib/errors";
import { signSessionToken } from "../../lib/jwt";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { openSession } from "../identity/sessions";
import { issueUserToken } from "../users/tokens";
import {
  checkVerifiedAssertion,
  type ExpectedResponse,
  precheckResponse,
  type ResponseEnvelope,
  type VerifiedAssertion,
} from "./assertion-checks";
import { reasonFromLibrary, SamlRejection } from "./rejection";
import { CLOCK_SKEW_MS, D1RequestStore, samlFor } from "./saml";
import type { SsoConfigRow } from "./schemas";
import { frontendUrl, isBuiltInConsole, serviceProviderUrls } from "./urls";
import { findOrProvisionUser, identityFromProfile } from "./users";

/**
 * A public route's context: no caller yet, the tenant comes from the slug. Its `db` is the control
 * database (SSO settings, SAML requests and assertions, users); audit rows go to the tenant's shard.
 */
/** Before the tenant is known: the control database only (SSO settings and SAML state are control rows). */
export type PublicContext = Omit<ServiceContext, "tenantId" | "actor" | "db">;

export interface SamlCallbackForm {
  SAMLResponse: string;
  RelayState?: string;
}

/** An unknown slug and a tenant without enabled SSO are the same 404. */
async function enabledConfig(db: ControlDb, slug: string): Promise<SsoConfigRow> {
  const row = await db
    .select()
    .from(ssoConfigs)
    .where(
      and(
        eq(ssoConfigs.enabled, true),
        inArray(ssoConfigs.tenantId, db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, slug))),
      ),
    )
    .get();
  if (!row) throw notFound("Single sign-on configuration");
  return row;
}

/**
 * The SP metadata of any existing tenant, SSO enabled or not, configured or not: the admin needs it
 * to create the application at the IdP before there is anything to configure here. Saved settings
 * (issuer, callbackUrl) are honoured; otherwise the defaults. Only an unknown slug is a 404.
 */
export async function serviceProviderMetadata(ctx: PublicContext, slug: string): Promise<string> {
  const row = await ctx.control
    .select({ tenantId: tenants.id, config: ssoConfigs })
    .from(tenants)
    .leftJoin(ssoConfigs, eq(ssoConfigs.tenantId, tenants.id))
    .where(eq(tenants.slug, slug))
    .get();
  if (!row) throw notFound("Tenant");
  const urls = serviceProviderUrls(ctx.env, slug, row.config);
  const config: SsoConfigRow = row.config ?? unconfigured(row.tenantId, urls.entityId);
  return (
    await samlFor({ config, acsUrl: urls.acsUrl, store: new D1RequestStore(ctx.control, row.tenantId) })
  ).generateServiceProviderMetadata(null, null);
}

/** Enough of a configuration to describe the SP; nothing here is saved or used to sign anyone in. */
const unconfigured = (tenantId: string, issuer: string): SsoConfigRow => ({
  tenantId,
  enabled: false,
  entryPoint: null,
  issuer,
  idpEntityId: null,
  callbackUrl: null,
  signatureAlgorithm: "sha256",
  attributeMapping: {},
  idpCertificates: [],
  jitProvisioning: false,
  defaultRole: "tenant_user",
  enforceSso: false,
  createdAt: "",
  updatedAt: "",
});

/** Remembers a new AuthnRequest id and returns the IdP URL carrying it (HTTP-Redirect binding). */
export async function startSignIn(ctx: PublicContext, slug: string): Promise<string> {
  const config = await enabledConfig(ctx.control, slug);
  const { acsUrl } = serviceProviderUrls(ctx.env, slug, config);
  const requestId = `_${randomBytes(20).toString("hex")}`;
  const saml = await samlFor({ config, acsUrl, store: new D1RequestStore(ctx.control, config.tenantId), requestId });
  // RelayState carries the request id back, so the callback can tie the two together
  return saml.getAuthorizeUrlAsync(requestId, undefined, {});
}

/**
 * Validates an IdP response and signs its user in: returns the frontend URL with a session token.
 * Any refusal is audited with its reason and answered 401 with nothing but that reason.
 */
export async function completeSignIn(pctx: PublicContext, slug: string, form: SamlCallbackForm): Promise<string> {
  const config = await enabledConfig(pctx.control, slug);
  // the login's audit rows go to the tenant's shard; the user, its grants and the SAML state are control rows
  const ctx: ServiceContext = {
    ...pctx,
    db: await tenantDb(pctx.env, config.tenantId),
    tenantId: config.tenantId,
    actor: { type: "system", name: "saml" },
  };
  const expected: ExpectedResponse = {
    acsUrl: serviceProviderUrls(ctx.env, slug, config).acsUrl,
    idpEntityId: config.idpEntityId ?? "",
    minimumAlgorithm: config.signatureAlgorithm,
    skewMs: CLOCK_SKEW_MS,
  };
  let email: string | undefined;
  try {
    const envelope = precheckResponse(decodeBase64Xml(form.SAMLResponse), expected, new Date());
    if (form.RelayState && form.RelayState !== envelope.inResponseTo) throw new SamlRejection("relay_state_mismatch");
    const store = new D1RequestStore(ctx.control, ctx.tenantId);
    const profile = await verifyWithLibrary(ctx, config, expected, store, envelope, form.SAMLResponse);
    const verified = checkVerifiedAssertion(profile.getAssertionXml!(), envelope, expected, new Date());
    await rememberAssertion(ctx, verified);
    const identity = identityFromProfile(profile, config.attributeMapping);
    email = identity.email;
    const target = new URL(frontendUrl(ctx.env));
    if (isBuiltInConsole(ctx.env)) {
      // decisions.md "SAML back to the console": a single-use code valid for seconds, exchanged by the
      // console for its own session (src/modules/console/sso.routes.tsx); no credential in the address bar
      const { code } = await signIn(ctx, config, identity, verified.assertionId, "code");
      target.searchParams.set("code", code!);
    } else {
      const { userId, sessionId } = await signIn(ctx, config, identity, verified.assertionId, "token");
      target.searchParams.set("token", await signSessionToken(ctx.env, userId, sessionId!));
    }
    return target.toString();
  } catch (err) {
    if (!(err instanceof SamlRejection)) throw err;
    log.warn("SAML response refused", {
      tenantId: ctx.tenantId,
      reason: err.reason,
      detail: err.internal,
      requestId: ctx.meta.requestId,
    });
    await auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "sso.login_failed",
      resourceType: "sso_config",
      resourceId: ctx.tenantId,
      metadata: { reason: err.reason, ...(email ? { email } : {}) },
    });
    throw new ApiError("UNAUTHENTICATED", "Invalid SAML response", { reason: err.reason });
  }
}

/** The HTTP-POST binding's SAMLResponse: base64, often wrapped in lines by the IdP. */
function decodeBase64Xml(value: string): string {
  try {
    return decodeBase64Text(value);
  } catch {
    throw new SamlRejection("malformed");
  }
}

async function verifyWithLibrary(
  _ctx: ServiceContext,
  config: SsoConfigRow,
  expected: ExpectedResponse,
  store: D1RequestStore,
  envelope: ResponseEnvelope,
  samlResponse: string,
): Promise<Profile> {
  if (envelope.inResponseTo && (await store.wasConsumed(envelope.inResponseTo))) throw new SamlRejection("replayed");
  try {
    const { profile } = await (await samlFor({ config, acsUrl: expected.acsUrl, store })).validatePostResponseAsync({
      SAMLResponse: samlResponse,
    });
    if (!profile?.getAssertionXml) throw new SamlRejection("invalid_response");
    return profile;
  } catch (err) {
    if (err instanceof SamlRejection) throw err;
    throw new SamlRejection(reasonFromLibrary(err), err instanceof Error ? err.message : String(err));
  }
}

/** The replay list: one row per accepted assertion id, kept until the assertion has expired. */
async function rememberAssertion(ctx: ServiceContext, verified: VerifiedAssertion) {
  const inserted = await ctx.control
    .insert(samlAssertions)
    .values({
      tenantId: ctx.tenantId,
      assertionId: verified.assertionId,
      expiresAt: new Date(verified.notOnOrAfter.getTime() + CLOCK_SKEW_MS).toISOString(),
      createdAt: nowIso(),
    })
    .onConflictDoNothing()
    .returning({ id: samlAssertions.assertionId });
  if (inserted.length === 0) throw new SamlRejection("replayed");
}

/**
 * The user (created first when JIT) and the session this IdP opened (method saml, this tenant's IdP:
 * docs/sessions.md) on the control database, then the login's audit rows on the tenant's shard.
 */
async function signIn(
  ctx: ServiceContext,
  config: SsoConfigRow,
  identity: ReturnType<typeof identityFromProfile>,
  assertionId: string,
  /** token: a bearer session for FRONTEND_URL's JWT; code: the console's single-use code (it opens its own session) */
  handOff: "token" | "code",
): Promise<{ userId: string; sessionId: string | null; code: string | null }> {
  const onShard = ctx;
  for (let attempt = 0; ; attempt++) {
    const user = await findOrProvisionUser(onShard, config, identity);
    const asUser: ServiceContext = { ...onShard, actor: { type: "user", userId: user.userId, via: "tenant" } };
    const session =
      handOff === "token"
        ? await openSession(ctx.control, {
            userId: user.userId,
            kind: "bearer",
            method: "saml",
            ssoTenantId: ctx.tenantId,
          })
        : null;
    const code =
      handOff === "code"
        ? await issueUserToken(ctx.control, { userId: user.userId, purpose: "sso", tenantId: ctx.tenantId })
        : null;
    try {
      await commitControl(asUser, (control) => [...user.controlStatements(control), (session ?? code)!.statement], [
        ...user.auditStatements,
        auditStatement(asUser, {
          tenantId: ctx.tenantId,
          action: "sso.login",
          resourceType: "user",
          resourceId: user.userId,
          metadata: { method: "saml", assertionId, provisioned: user.provisioned },
        }),
      ]);
      return { userId: user.userId, sessionId: session?.id ?? null, code: code?.token ?? null };
    } catch (err) {
      // two first sign-ins of the same new user at once: the second finds the first's row
      if (attempt === 0 && user.provisioned && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}
