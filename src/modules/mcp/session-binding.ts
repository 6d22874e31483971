import type { Env } from "../../env";
import { hmacBase64Url, purposeKey } from "../../lib/crypto";
import { jwtSecrets } from "../../lib/jwt";
import { principalBinding, type SessionIdentity } from "./identity";

// An MCP session (2025-xx) is bound to the principal that opened it, not to a credential it keeps:
// every request carries its own credential (docs/mcp.md, Credentials), which is verified afresh, and its
// principal must be the session's. The session's Durable Object holds only a keyed hash of the binding,
// so its storage holds no credential and nothing that names the caller.

/**
 * The keyed hashes of the identity's principal binding: under JWT_SECRET first, then JWT_SECRET_PREVIOUS
 * during a rotation (a session opened before the rotation still matches). A session stores the first.
 */
export async function principalDigests(env: Env, identity: SessionIdentity): Promise<string[]> {
  const secrets = jwtSecrets(env);
  if (!secrets.length) throw new Error("JWT_SECRET is not configured; MCP sessions need it");
  const binding = `mcp-session-principal/v1\u0000${principalBinding(identity)}`;
  return Promise.all(
    secrets.map(async (secret) => hmacBase64Url(await purposeKey(secret, "mcp-session-principal"), binding)),
  );
}
