import type { Env } from "../../env";

export interface ServiceProviderUrls {
  entityId: string;
  acsUrl: string;
  metadataUrl: string;
  loginUrl: string;
}

/** The service provider's URLs for a tenant; a configured issuer or callbackUrl overrides the default. */
export function serviceProviderUrls(
  env: Env,
  slug: string,
  config?: { issuer: string; callbackUrl: string | null } | null,
): ServiceProviderUrls {
  const base = `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/auth/saml/${slug}`;
  return {
    entityId: config?.issuer ?? `${base}/metadata`,
    acsUrl: config?.callbackUrl ?? `${base}/callback`,
    metadataUrl: `${base}/metadata`,
    loginUrl: `${base}/init`,
  };
}

/** Where a successful sign-in lands: FRONTEND_URL, or this service's own /sso/complete page. */
export const frontendUrl = (env: Env) => env.FRONTEND_URL || `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/sso/complete`;
