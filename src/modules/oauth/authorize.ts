import type { AuthRequest, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { asc, eq, inArray, or } from "drizzle-orm";
import type { Context } from "hono";
import { jwtVerify, SignJWT } from "jose";
import type { AppEnv } from "../../app-env";
import type { ControlDb } from "../../db/client";
import { tenants } from "../../db/schema";
import type { Env } from "../../env";
import { deriveKey, MAX_PASSWORD_BYTES, sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { requestMeta } from "../../middleware/service-context";
import { checkPassword } from "../auth/service";
import {
  administeredAgencies,
  isPlatformAdmin,
  PASSWORD_SIGN_IN,
  resolveTenantAccess,
  type UserPrincipal,
} from "../identity/access";
import { findTenantRef, loadUserPrincipal } from "../identity/service";
import { agencyBrand, hostBrand, tenantWhiteLabel } from "../white-label/resolve";
import { consentPage, errorPage, signInPage, type TenantChoice } from "./consent-page";
import { allUserGrants } from "./grants";
import {
  authServer,
  cimdClientProblem,
  type GrantMetadata,
  type GrantProps,
  grantableScopes,
  oauthLib,
} from "./provider";
import { isScope, type Scope } from "./scopes";

type C = Context<AppEnv>;

const TICKET_AUDIENCE = "oauth-consent";
const TICKET_TTL_SECONDS = 600;

const html = (body: string, status = 200, headers?: Headers) => {
  const h = new Headers(headers);
  h.set("Content-Type", "text/html; charset=utf-8");
  h.set("Cache-Control", "no-store");
  h.set("X-Frame-Options", "DENY");
  h.set(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https:; form-action 'self' http: https:; frame-ancestors 'none'",
  );
  return new Response(body, { status, headers: h });
};

/** The ticket's own key (HKDF from JWT_SECRET), not the secret that signs session JWTs. */
const ticketKey = (env: Env) => deriveKey(env.JWT_SECRET ?? "", "oauth-consent-ticket");

/** Proof, between the two form posts, that this browser signed in as the user for this consent handle. */
async function signTicket(env: Env, userId: string, handle: string) {
  return new SignJWT({ h: await sha256Hex(handle) })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setAudience(TICKET_AUDIENCE)
    .setIssuer(env.JWT_ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${TICKET_TTL_SECONDS}s`)
    .sign(await ticketKey(env));
}

async function verifyTicket(env: Env, ticket: string, handle: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(ticket, await ticketKey(env), {
      algorithms: ["HS256"],
      audience: TICKET_AUDIENCE,
      issuer: env.JWT_ISSUER,
    });
    return payload.sub && payload.h === (await sha256Hex(handle)) ? payload.sub : null;
  } catch {
    return null;
  }
}

/** The tenants a user may connect an app for; agency admins see their agencies' tenants. */
export async function tenantChoices(db: ControlDb, p: UserPrincipal): Promise<TenantChoice[]> {
  const direct = p.roles.filter((r) => r.scopeType === "tenant").map((r) => r.scopeId);
  const agencies = administeredAgencies(p);
  const platform = isPlatformAdmin(p);
  if (!platform && direct.length === 0 && agencies.length === 0) return [];
  const where = platform
    ? undefined
    : or(
        direct.length ? inArray(tenants.id, direct) : undefined,
        agencies.length ? inArray(tenants.agencyId, agencies) : undefined,
      );
  const rows = await db
    .select({ id: tenants.id, name: tenants.name, agencyId: tenants.agencyId })
    .from(tenants)
    .where(where)
    .orderBy(asc(tenants.name), asc(tenants.id))
    .limit(200);
  return rows.map((t) => ({ ...t, inAdministeredAgency: agencies.includes(t.agencyId) }));
}

/** The white label of the host the page is served on: a custom hostname's owner, else the platform's. */
const brandOf = (c: C) => hostBrand(c.var.control, c.var.customHost);

/**
 * After sign-in the consent step knows the user: when every tenant they may connect belongs to one
 * agency, it wears that tenant's (one tenant) or that agency's white label; otherwise the host's.
 */
async function brandForChoices(c: C, choices: TenantChoice[]) {
  const agencyIds = new Set(choices.map((t) => t.agencyId));
  if (agencyIds.size !== 1) return brandOf(c);
  if (choices.length === 1) return (await tenantWhiteLabel(c.var.control, choices[0]!.id))?.brand ?? brandOf(c);
  return agencyBrand(c.var.control, choices[0]!.agencyId);
}

/**
 * What this user already allowed this client: the scopes of their grants to it for the tenant
 * (any tenant when none is given), newest first. Incremental consent asks only for the rest.
 */
async function priorGrants(oauth: OAuthHelpers, userId: string, clientId: string, tenantId?: string) {
  return (await allUserGrants(oauth, userId))
    .filter(
      (g) =>
        g.clientId === clientId && (!tenantId || (g.metadata as Partial<GrantMetadata> | null)?.tenantId === tenantId),
    )
    .sort((a, b) => b.createdAt - a.createdAt);
}

/** The consent page's options: for a client this user already allowed, only the scopes it adds. */
async function consentOptions(oauth: OAuthHelpers, request: AuthRequest, userId: string, grantable: readonly Scope[]) {
  const prior = await priorGrants(oauth, userId, request.clientId);
  const latest = prior[0];
  // a grant for the other resource may hold scopes this one cannot (write scopes, read-only resource)
  const granted = latest ? latest.scope.filter(isScope).filter((s) => grantable.includes(s)) : [];
  const asked = request.scope.filter(isScope).filter((s) => grantable.includes(s));
  const added = asked.filter((s) => !granted.includes(s));
  if (!latest || asked.length === 0 || added.length === 0)
    return { offered: [...grantable] as string[], granted: [] as string[], tenantId: undefined };
  return {
    offered: added as string[],
    granted: granted as string[],
    tenantId: (latest.metadata as Partial<GrantMetadata> | null)?.tenantId,
  };
}

/** What the pages show of the request: the scopes it asks for, narrowed to what its resource may grant. */
async function describedFor(oauth: OAuthHelpers, request: AuthRequest, grantable: readonly Scope[]) {
  const details = await oauth.describeConsent(request);
  return { ...details, scope: details.scope.filter((s) => isScope(s) && grantable.includes(s)) };
}

/** Renders what went wrong locally, or redirects to the client when the library says that is safe. */
async function authorizationFailure(c: C, e: unknown): Promise<Response> {
  const { AuthorizationError, CimdFetchError } = await oauthLib();
  if (e instanceof AuthorizationError && e.redirectTo) return Response.redirect(e.redirectTo, 302);
  if (e instanceof AuthorizationError) return html(errorPage(e.description, await brandOf(c)), 400);
  if (e instanceof CimdFetchError) return html(errorPage("This app could not be verified.", await brandOf(c)), 400);
  throw e;
}

/** A CIMD client_id that points at our own network is refused before anything fetches it. */
function refuseUnsafeClientId(c: C): Response | null {
  const problem = cimdClientProblem(new URL(c.req.url).searchParams.get("client_id"));
  return problem ? html(errorPage("This app could not be verified."), 400) : null;
}

/** GET /oauth/authorize: validates the request (client, redirect URI, PKCE S256, resource) and shows the sign-in form. */
export async function showAuthorize(c: C): Promise<Response> {
  const guarded = refuseUnsafeClientId(c);
  if (guarded) return guarded;
  try {
    const oauth = (await authServer(c.env)).getOAuthApi(c.env);
    const request = await oauth.parseAuthRequest(c.req.raw);
    const details = await describedFor(oauth, request, grantableScopes(c.env, request.resource));
    const consent = await oauth.beginConsent(request);
    return html(signInPage(details, consent.handle, undefined, await brandOf(c)), 200, consent.headers);
  } catch (e) {
    return await authorizationFailure(c, e);
  }
}

/** POST /oauth/authorize: step "signin" checks the password; step "consent" allows or denies. */
export async function submitAuthorize(c: C): Promise<Response> {
  const guarded = refuseUnsafeClientId(c);
  if (guarded) return guarded;
  const oauth = (await authServer(c.env)).getOAuthApi(c.env);
  let request: AuthRequest;
  try {
    // the form posts back to the same URL, so the original (validated) query is still there
    request = await oauth.parseAuthRequest(new Request(c.req.url, { method: "GET", headers: c.req.raw.headers }));
  } catch (e) {
    return await authorizationFailure(c, e);
  }
  const form = await c.req.formData();
  const field = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : "";
  };
  const handle = field("handle");
  if (!handle) return html(errorPage("The form is incomplete; start again.", await brandOf(c)), 400);
  return field("step") === "consent"
    ? consent(c, oauth, request, handle, form, field)
    : signIn(c, oauth, request, handle, field);
}

async function signIn(c: C, oauth: OAuthHelpers, request: AuthRequest, handle: string, field: (n: string) => string) {
  const grantable = grantableScopes(c.env, request.resource);
  const details = await describedFor(oauth, request, grantable);
  const email = field("email").trim().toLowerCase();
  const password = field("password");
  if (!email || password.length < 8 || new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES) {
    return html(signInPage(details, handle, "Invalid email or password.", await brandOf(c)), 401);
  }
  let userId: string;
  try {
    // the same login as POST /auth/login, with its per-email and per-IP throttling
    // no session is opened: what this sign-in yields is an OAuth grant, a credential of its own
    userId = (await checkPassword(c.var.control, c.env, requestMeta(c).ip, email, password)).id;
  } catch (e) {
    if (e instanceof ApiError && e.code === "UNAUTHENTICATED")
      return html(signInPage(details, handle, "Invalid email or password.", await brandOf(c)), 401);
    if (e instanceof ApiError && e.code === "RATE_LIMITED") {
      return html(
        signInPage(details, handle, "Too many sign-in attempts; wait a few minutes.", await brandOf(c)),
        429,
        new Headers(e.headers),
      );
    }
    throw e;
  }
  const principal = await loadUserPrincipal(c.var.control, userId, PASSWORD_SIGN_IN);
  const choices = principal ? await tenantChoices(c.var.control, principal) : [];
  if (!principal || choices.length === 0)
    return html(signInPage(details, handle, "This account has no tenant to connect.", await brandOf(c)), 403);
  const ticket = await signTicket(c.env, userId, handle);
  const options = await consentOptions(oauth, request, userId, grantable);
  return html(
    consentPage(details, { handle, ticket, email, tenants: choices, ...options }, await brandForChoices(c, choices)),
  );
}

async function consent(
  c: C,
  oauth: OAuthHelpers,
  request: AuthRequest,
  handle: string,
  form: FormData,
  field: (n: string) => string,
) {
  const userId = await verifyTicket(c.env, field("ticket"), handle);
  if (!userId) return html(errorPage("The sign-in expired; start again.", await brandOf(c)), 400);
  try {
    if (field("decision") !== "approve") {
      const denied = await oauth.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const principal = await loadUserPrincipal(c.var.control, userId, PASSWORD_SIGN_IN);
    const tenant = await findTenantRef(c.var.control, field("tenant"));
    // the form is the user's; a scope the resource cannot grant (ticked in a forged form) is dropped
    const grantable = grantableScopes(c.env, request.resource);
    const scopes = [
      ...new Set(
        form
          .getAll("scope")
          .map(String)
          .filter((s) => isScope(s) && grantable.includes(s)),
      ),
    ];
    const agencySession = field("agency") === "on";
    const problem =
      !principal || !tenant || !resolveTenantAccess(principal, tenant)
        ? "Choose a tenant you can access."
        : agencySession && !administeredAgencies(principal).includes(tenant.agencyId)
          ? "An agency session starts from a tenant of an agency you administer."
          : scopes.length === 0
            ? "Allow at least one permission, or deny."
            : null;
    if (problem) {
      const details = await describedFor(oauth, request, grantable);
      const choices = principal ? await tenantChoices(c.var.control, principal) : [];
      const options = await consentOptions(oauth, request, userId, grantable);
      return html(
        consentPage(
          details,
          {
            handle,
            ticket: field("ticket"),
            email: principal?.email ?? "",
            tenants: choices,
            ...options,
            error: problem,
          },
          await brandForChoices(c, choices),
        ),
        400,
      );
    }
    // incremental consent: the new grant keeps what this user already allowed this client for the tenant
    const prior = await priorGrants(oauth, userId, request.clientId, tenant!.id);
    const priorScopes = prior
      .filter((g) => Boolean((g.metadata as Partial<GrantMetadata> | null)?.agencySession) === agencySession)
      .flatMap((g) => g.scope.filter(isScope))
      .filter((s) => grantable.includes(s));
    const allScopes = [...new Set([...priorScopes, ...scopes])];
    const approved = await oauth.approveConsent(c.req.raw, handle, { scope: allScopes });
    const details = await oauth.describeConsent(approved.request);
    const named = await c.var.control
      .select({ name: tenants.name })
      .from(tenants)
      .where(eq(tenants.id, tenant!.id))
      .get();
    const tenantName = named?.name ?? tenant!.id;
    const props: GrantProps = { tenantId: tenant!.id, agencySession };
    const metadata: GrantMetadata = { ...props, clientName: details.clientName, tenantName };
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId,
      metadata,
      scope: allScopes,
      props,
    });
    approved.headers.set("Location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (e) {
    return await authorizationFailure(c, e);
  }
}
