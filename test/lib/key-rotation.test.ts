import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { decryptSecret, encryptSecret } from "../../src/lib/crypto";
import { jwtSecrets, signSessionToken, verifySessionToken } from "../../src/lib/jwt";
import {
  mintLinkToken,
  mintUnsubscribeToken,
  readLinkToken,
  readUnsubscribeToken,
} from "../../src/modules/links/tokens";
import { openSecret } from "../../src/modules/outgoing-webhooks/service";
import { seedTenant, seedUser } from "../helpers/seed";

// Rotation (docs/deploy.md, Rotating secrets): the new secret becomes JWT_SECRET / ENCRYPTION_KEY and
// the old one JWT_SECRET_PREVIOUS / ENCRYPTION_KEY_PREVIOUS, so what the old one signed or sealed
// keeps working; new tokens and new seals use only the new one.
const OLD_JWT = env.JWT_SECRET!;
// the replacements are made as the docs make them, per run (vitest.config.mts): `openssl rand -base64 32`
// for the key (its trailing newline included), the setup scripts' maker for the JWT secret
const NEW_JWT = env.TEST_ROTATED_JWT_SECRET!;
const OLD_KEY = env.ENCRYPTION_KEY!;
const NEW_KEY = env.TEST_KEY_SAMPLES!.find((k) => k.source.startsWith("openssl"))!.key;

const rotating: Env = {
  ...env,
  JWT_SECRET: NEW_JWT,
  JWT_SECRET_PREVIOUS: OLD_JWT,
  ENCRYPTION_KEY: NEW_KEY,
  ENCRYPTION_KEY_PREVIOUS: OLD_KEY,
};
const rotated: Env = { ...env, JWT_SECRET: NEW_JWT, ENCRYPTION_KEY: NEW_KEY };

async function me(token: string, e: Env) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/me", { headers: { authorization: `Bearer ${token}` } }),
    e,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as { id?: string; code?: string } };
}

describe("JWT_SECRET rotation", () => {
  let user: Awaited<ReturnType<typeof seedUser>>;
  beforeAll(async () => {
    const tenant = await seedTenant();
    user = await seedUser({
      grants: [{ scopeType: "tenant", scopeId: tenant.id, role: "viewer" }],
      tenantId: tenant.id,
    });
  });

  it("accepts a session signed with the previous secret while JWT_SECRET_PREVIOUS is set, and not after", async () => {
    const oldToken = user.token; // signed with the secret in force before the rotation
    expect(await me(oldToken, rotating)).toMatchObject({ status: 200, body: { id: user.id } });
    expect(await me(oldToken, rotated)).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
  });

  it("signs new sessions with the new secret only", async () => {
    const fresh = await signSessionToken(rotating, user.id, user.sessionId);
    expect(await verifySessionToken(rotated, fresh)).toMatchObject({ userId: user.id });
    expect(await verifySessionToken({ ...env, JWT_SECRET: OLD_JWT }, fresh)).toBeNull();
  });

  it("keeps unsubscribe and short-link tokens from e-mails already sent working", async () => {
    const unsub = { tenantId: "t1", contactId: "c1", channel: "email", solicitationId: "s1" };
    const link = { solicitationId: "s1", tenantId: "t1", locationId: "l1", destination: "google" };
    const oldUnsub = await mintUnsubscribeToken(OLD_JWT, unsub);
    const oldLink = await mintLinkToken(OLD_JWT, link);
    expect(await readUnsubscribeToken(jwtSecrets(rotating), oldUnsub)).toEqual(unsub);
    expect(await readLinkToken(jwtSecrets(rotating), oldLink)).toEqual(link);
    expect(await readUnsubscribeToken(jwtSecrets(rotated), oldUnsub)).toBeNull();
    expect(await readLinkToken(jwtSecrets(rotated), oldLink)).toBeNull();
  });

  it("ignores a previous secret shorter than 32 characters", () => {
    expect(jwtSecrets({ JWT_SECRET: NEW_JWT, JWT_SECRET_PREVIOUS: "short" })).toEqual([NEW_JWT]);
    expect(jwtSecrets(rotating)).toEqual([NEW_JWT, OLD_JWT]);
  });
});

describe("ENCRYPTION_KEY rotation", () => {
  it("opens values sealed with the previous key while ENCRYPTION_KEY_PREVIOUS is set, and not after", async () => {
    const sealedOld = await encryptSecret("whsec_old-signing-secret", OLD_KEY);
    expect(await openSecret(rotating, { secretEncrypted: sealedOld })).toBe("whsec_old-signing-secret");
    await expect(openSecret(rotated, { secretEncrypted: sealedOld })).rejects.toThrow();
  });

  it("seals new values with the new key, which the previous key cannot open", async () => {
    const sealedNew = await encryptSecret("sk_new", NEW_KEY);
    expect(await decryptSecret(sealedNew, NEW_KEY, OLD_KEY)).toBe("sk_new");
    await expect(decryptSecret(sealedNew, OLD_KEY)).rejects.toThrow();
  });
});
