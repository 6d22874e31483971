import type { Env } from "../../env";
import { signToken, verifyWithAny } from "../links/tokens";

export type AlertEmailKind = "instant" | "digest";

/** What an alert email's unsubscribe link carries: which subscription, and which of its emails to stop. */
export interface AlertUnsubscribeClaims {
  tenantId: string;
  subscriptionId: string;
  kind: AlertEmailKind;
}

// its own purpose: the key is derived per purpose, so a contact's unsubscribe token is never accepted here
export const mintAlertUnsubscribeToken = (secret: string, c: AlertUnsubscribeClaims) =>
  signToken(secret, "alert", [c.tenantId, c.subscriptionId, c.kind]);

/** `secrets` is jwtSecrets(env): a link sent before a JWT_SECRET rotation keeps working. */
export async function readAlertUnsubscribeToken(
  secrets: string | readonly string[],
  token: string,
): Promise<AlertUnsubscribeClaims | null> {
  const f = await verifyWithAny(secrets, "alert", token);
  if (f?.length !== 3 || (f[2] !== "instant" && f[2] !== "digest")) return null;
  return { tenantId: f[0]!, subscriptionId: f[1]!, kind: f[2] };
}

export async function alertUnsubscribeUrl(env: Env, c: AlertUnsubscribeClaims) {
  return `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/alerts/unsubscribe/${await mintAlertUnsubscribeToken(env.JWT_SECRET!, c)}`;
}

/** RFC 2369 + RFC 8058 headers: mail clients offer a one-click unsubscribe that POSTs to the link. */
export const listUnsubscribeHeaders = (url: string) => ({
  "List-Unsubscribe": `<${url}>`,
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
});
