// ENCRYPTION_KEY as users make it (#43): `openssl rand -base64 32` (docs/deploy.md) and Node's
// `randomBytes(32).toString("base64")` (scripts/dev.mjs, setup:cloudflare) write the standard alphabet, with
// "+" or "/" in about three keys of four. The start-up check (src/env.ts) and every reader of the key
// (src/lib/crypto.ts) read it with one decoder (src/lib/base64.ts), so what passes the check also seals.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { misconfiguration } from "../../src/env";
import { decryptSecret, encryptSecret } from "../../src/lib/crypto";
import { createWorld, type World } from "../helpers/seed";
import { connect, fetchWithEnv, mintTestKey } from "../mcp/helpers";

/** 32 bytes whose spellings exercise every form: "+" and "/", padded and not, the URL alphabet, a newline. */
const FIXED: { source: string; key: string }[] = [
  { source: "with + and /, padded", key: "+/v7////AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" },
  { source: "with + and /, unpadded", key: "+/v7////AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
  { source: "with +", key: "+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pg=" },
  { source: "with /", key: "//////////////////////////////////////////8=" },
  { source: "URL alphabet", key: "-_v7____AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
  { source: "openssl's trailing newline", key: "+/v7////AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n" },
];
/** made per run by vitest.config.mts: the generator dev.mjs and setup:cloudflare use, and openssl itself */
const GENERATED = env.TEST_KEY_SAMPLES ?? [];
const KEYS = [...FIXED, ...GENERATED];

const label = (k: { source: string; key: string }) => `${k.source}: ${JSON.stringify(k.key)}`;

describe("ENCRYPTION_KEY in every spelling users produce", () => {
  it("has generated samples from both makers this run", () => {
    expect(GENERATED.filter((k) => k.source === "openssl rand -base64 32").length).toBeGreaterThan(0);
    expect(GENERATED.filter((k) => k.source === "scripts/lib/secrets.mjs").length).toBeGreaterThan(0);
  });

  it.each(KEYS)("passes the start-up check, seals and opens ($source)", async (k) => {
    expect(misconfiguration({ ...env, ENCRYPTION_KEY: k.key, ENCRYPTION_KEY_PREVIOUS: k.key }), label(k)).toBeNull();
    const sealed = await encryptSecret("sk_live_secret", k.key).catch((e: Error) => {
      throw new Error(`${label(k)} does not seal: ${e.message}`);
    });
    expect(await decryptSecret(sealed, k.key), label(k)).toBe("sk_live_secret");
  });

  it("reads the same bytes whatever the spelling: what one sealed, the others open", async () => {
    const sealed = await encryptSecret("same key", FIXED[0]!.key);
    for (const k of FIXED.slice(0, 2).concat(FIXED[4]!, FIXED[5]!))
      expect(await decryptSecret(sealed, k.key), label(k)).toBe("same key");
  });

  it("refuses at start-up a key that is not 32 bytes of base64, as before", () => {
    for (const key of [
      "c2hvcnQ=", // 5 bytes
      "+/v7////AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", // 31 bytes
      "+/v7////AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", // 33 bytes
      "not base64 at all, but forty-four characters",
      "+/v7////AAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    ])
      expect(misconfiguration({ ...env, ENCRYPTION_KEY: key }), key).toMatch(/ENCRYPTION_KEY must be 32 bytes/);
  });

  it("still opens a value sealed before the decoder changed (the old fixed test key)", async () => {
    const oldKey = "dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy0hISE=";
    const sealedBefore = "v1.xUF_sVRlWQRNr7Epa-DIpJYipzezeWpBS6JT-s3nG-4xx86rXERumQfCyxDGZCxMuTT8irZPwIKCOAtg4w";
    expect(await decryptSecret(sealedBefore, oldKey)).toBe("sealed before the decoder changed");
    // during a rotation, a new key with "+" and "/" and the old one as ENCRYPTION_KEY_PREVIOUS
    expect(await decryptSecret(sealedBefore, FIXED[0]!.key, oldKey)).toBe("sealed before the decoder changed");
  });
});

describe("the product with a key that has + and / (what failed on a fresh clone)", () => {
  const key = FIXED[0]!.key;
  const served = fetchWithEnv({ ENCRYPTION_KEY: key });
  let w: World;
  beforeAll(async () => {
    w = await createWorld();
  });

  it("opens an MCP session (2025-11-25) with an API key and calls a tool", async () => {
    const { token } = mintTestKey(w.tenantA.id, ["read:locations", "read:reviews"]);
    const { client } = await connect({ token, fetch: served });
    expect(client.getServerVersion()?.name).toBeTruthy();
    const tools = await client.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    const called = await client.callTool({ name: "location.list", arguments: {} });
    expect(called.isError ?? false).toBe(false);
    await client.close();
  });

  it("saves integration credentials and reads them back through the service", async () => {
    const headers = {
      authorization: `Bearer ${w.users.tenantAdmin.token}`,
      "x-tenant-id": w.tenantA.id,
      "content-type": "application/json",
    };
    const loc = await served("http://localhost:8787/v1/locations", {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Downtown", timezone: "UTC" }),
    });
    expect(loc.status).toBe(201);
    const location = (await loc.json()) as { id: string };
    const created = await served("http://localhost:8787/v1/integrations", {
      method: "POST",
      headers,
      body: JSON.stringify({
        connectorType: "google",
        name: "Google Downtown",
        locationId: location.id,
        config: { accountId: "111", locationId: "222" },
        credentials: { accessToken: "ya29.secret-token" },
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const integration = (await created.json()) as { id: string; hasCredentials: boolean };
    expect(integration.hasCredentials).toBe(true);
    // a partial update re-reads the stored credentials to check the connection: they must open
    const updated = await served(`http://localhost:8787/v1/integrations/${integration.id}`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ name: "Google Downtown (main)" }),
    });
    expect(updated.status, await updated.clone().text()).toBe(200);
  });
});
