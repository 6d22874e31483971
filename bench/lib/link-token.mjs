// Mints short-link tokens the way src/modules/links/tokens.ts does (the bench runs in plain Node
// and cannot import TypeScript): base64url(payload) "." base64url(HMAC(derived key, payload)[0..16]).
import { createHmac } from "node:crypto";

const b64url = (buf) => Buffer.from(buf).toString("base64url");

export function mintLinkToken(secret, { solicitationId, tenantId, locationId, destination }) {
  const derived = createHmac("sha256", secret).update("public-token:link:v1").digest();
  const payload = b64url(["link", solicitationId, tenantId, locationId, destination].join("~"));
  const mac = createHmac("sha256", derived).update(payload).digest().subarray(0, 16);
  return `${payload}.${b64url(mac)}`;
}

/** The secret bench/lib/server.mjs gives the Worker. */
export const BENCH_JWT_SECRET = "bench-jwt-secret-0123456789-0123456789";
