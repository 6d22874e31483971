import { expect } from "vitest";
import type { World } from "../helpers/seed";
import { IDP, KEYS } from "./idp";

export const BASE = "http://localhost:8787";

export interface SpUrls {
  slug: string;
  acsUrl: string;
  audience: string;
}

export const spUrls = (slug: string): SpUrls => ({
  slug,
  acsUrl: `${BASE}/auth/saml/${slug}/callback`,
  audience: `${BASE}/auth/saml/${slug}/metadata`,
});

/** Enables SSO on tenant A (or the given tenant, as its admin) trusting the idp1 certificate. */
export async function enableSso(
  w: World,
  body: Record<string, unknown> = {},
  as: "tenantAdmin" | "tenantBAdmin" = "tenantAdmin",
) {
  const res = await w.as(as).put("/v1/settings/sso", {
    enabled: true,
    entryPoint: IDP.ssoUrl,
    idpEntityId: IDP.entityId,
    idpCertificates: [KEYS.idp1.cert],
    jitProvisioning: true,
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
