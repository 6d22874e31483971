import type { Env } from "../../env";
import { deriveKey, hmacBase64Url, randomToken, safeEqual } from "../../lib/crypto";
import { principalBinding, type SessionIdentity } from "./identity";

/** How long the user has to answer a confirmation (at most 10 minutes, per docs/SECURITY.md). */
export const CONFIRMATION_TTL_MS = 10 * 60 * 1000;

/** What a confirmation is bound to, besides the tool and its arguments. */
export interface ConfirmationCaller {
  env: Env;
  identity: SessionIdentity;
  /** the MCP session on the 2025-xx leg; null on the stateless leg (no session to bind to) */
  session: string | null;
  /**
   * the tenant the call acts for (an agency session may name another tenant of its agency): its Durable
   * Object keeps the confirmation, and its console shows the confirm page (confirm-in-browser.ts)
   */
  tenantId: string;
}

export interface IssuedConfirmation {
  /** the opaque value the client brings back: requestState (elicitation) or the `confirm` argument */
  code: string;
  expiresAt: string;
}

const CODE = /^mc1\.([A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{43})$/;

/** JSON with sorted keys, so the same arguments always give the same text. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(",")}]`
    : v && typeof v === "object"
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : (JSON.stringify(v) ?? "null");

const key = (env: Env) => deriveKey(env.JWT_SECRET ?? "", "mcp-confirmation");

/**
 * The keyed digest of everything a confirmation is bound to: tenant, credential (kind, key or user,
 * OAuth client and grant, agency session), the MCP session when there is one, the tool and its arguments
 * (without `confirm`). Kept in the Durable Object instead of the arguments themselves.
 */
export async function bindingDigest(
  c: ConfirmationCaller,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const { confirm: _answer, ...rest } = args;
  // the principal as a session binds it (identity.ts): the key; the user, OAuth client and grant; the user
  const binding = ["mcp-confirmation/v2", principalBinding(c.identity), c.session, tool, rest];
  return hmacBase64Url(await key(c.env), canonical(binding));
}

/** The tenant's Durable Object, which holds its MCP sessions and its pending confirmations. */
export const confirmationStore = (env: Env, tenantId: string) =>
  env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(tenantId));
const store = (c: ConfirmationCaller) => confirmationStore(c.env, c.tenantId);

/**
 * Asks for a confirmation of this exact call: a fresh nonce recorded in the tenant's Durable Object
 * with its binding and expiry. The code is the nonce with a MAC, so a made-up code is refused
 * before any storage is read.
 */
export async function issueConfirmation(
  c: ConfirmationCaller,
  tool: string,
  args: Record<string, unknown>,
  now = Date.now(),
): Promise<IssuedConfirmation> {
  const nonce = randomToken(24);
  const expiresAt = now + CONFIRMATION_TTL_MS;
  await store(c).issueConfirmation(nonce, { digest: await bindingDigest(c, tool, args), expiresAt }, now);
  return {
    code: `mc1.${nonce}.${await hmacBase64Url(await key(c.env), `nonce:${nonce}`)}`,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

/**
 * Spends a code: true only for a code this server issued, unexpired, not used before, for the same
 * caller, session, tool and arguments. Any presentation of a real code spends it.
 */
export async function redeemConfirmation(
  c: ConfirmationCaller,
  tool: string,
  args: Record<string, unknown>,
  code: unknown,
  now = Date.now(),
): Promise<boolean> {
  const m = typeof code === "string" ? CODE.exec(code) : null;
  if (!m) return false;
  const [, nonce, mac] = m;
  if (!safeEqual(mac!, await hmacBase64Url(await key(c.env), `nonce:${nonce}`))) return false;
  return (await store(c).redeemConfirmation(nonce!, await bindingDigest(c, tool, args), now)) === "ok";
}
