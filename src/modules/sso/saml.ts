import type { CacheItem, CacheProvider, SAML } from "@node-saml/node-saml";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { samlRequests } from "../../db/schema";
import { nowIso } from "../../lib/time";
import type { SsoConfigRow } from "./schemas";

export const CLOCK_SKEW_MS = 2 * 60_000;
/** how long the user has at the IdP between /init and the callback */
export const REQUEST_TTL_MS = 15 * 60_000;
export const EMAIL_NAME_ID = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

/**
 * The library's InResponseTo store, in D1 and per tenant: a request id is found only by the tenant
 * that sent it, only until it expires, and only once (removal marks it consumed, which is how a
 * second answer to the same request is told apart from an unknown one).
 */
export class D1RequestStore implements CacheProvider {
  constructor(
    private readonly db: ControlDb,
    private readonly tenantId: string,
  ) {}

  async saveAsync(key: string, value: string): Promise<CacheItem> {
    const now = Date.now();
    await this.db.insert(samlRequests).values({
      id: key,
      tenantId: this.tenantId,
      createdAt: value,
      expiresAt: new Date(now + REQUEST_TTL_MS).toISOString(),
    });
    return { value, createdAt: now };
  }

  async getAsync(key: string): Promise<string | null> {
    const row = await this.db
      .select({ createdAt: samlRequests.createdAt })
      .from(samlRequests)
      .where(
        and(
          eq(samlRequests.id, key),
          eq(samlRequests.tenantId, this.tenantId),
          isNull(samlRequests.consumedAt),
          gt(samlRequests.expiresAt, nowIso()),
        ),
      )
      .get();
    return row?.createdAt ?? null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (!key) return null;
    await this.db
      .update(samlRequests)
      .set({ consumedAt: nowIso() })
      .where(and(eq(samlRequests.id, key), eq(samlRequests.tenantId, this.tenantId), isNull(samlRequests.consumedAt)));
    return key;
  }

  /** true when the id was ours and has been answered already */
  async wasConsumed(key: string): Promise<boolean> {
    const row = await this.db
      .select({ consumedAt: samlRequests.consumedAt })
      .from(samlRequests)
      .where(and(eq(samlRequests.id, key), eq(samlRequests.tenantId, this.tenantId)))
      .get();
    return Boolean(row?.consumedAt);
  }
}

export interface SamlSetup {
  config: SsoConfigRow;
  acsUrl: string;
  store: D1RequestStore;
  requestId?: string;
}

/**
 * @node-saml/node-saml configured for one tenant: only that tenant's certificates (never KeyInfo
 * from the message), assertions must be signed, audience = our entity id, InResponseTo always
 * required and looked up in D1, 2 minutes of clock skew. The library does not check Recipient,
 * Destination, the Issuer or replays: assertion-checks.ts and the login service do.
 */
export async function samlFor({ config, acsUrl, store, requestId }: SamlSetup): Promise<SAML> {
  // loaded on first use: the SAML/XML libraries cost every isolate ~10 ms of start-up CPU (docs/performance.md)
  const { SAML, ValidateInResponseTo } = await import("@node-saml/node-saml");
  return new SAML({
    entryPoint: config.entryPoint ?? undefined,
    issuer: config.issuer,
    audience: config.issuer,
    callbackUrl: acsUrl,
    idpCert: config.idpCertificates,
    wantAssertionsSigned: true,
    // many IdPs (Entra ID by default) sign only the assertion; the signed assertion is what we read
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: store,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    identifierFormat: EMAIL_NAME_ID,
    // let the IdP choose how to authenticate (MFA, passkeys) instead of demanding a password
    disableRequestedAuthnContext: true,
    ...(requestId ? { generateUniqueId: () => requestId } : {}),
  });
}
