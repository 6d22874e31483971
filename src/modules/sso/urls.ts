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

const consoleLanding = (env: Env) => `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/sso/complete`;

/** Where a successful sign-in lands: FRONTEND_URL, or the built-in console's /sso/complete page. */
export const frontendUrl = (env: Env) => env.FRONTEND_URL || consoleLanding(env);

/** The built-in console is the frontend (no FRONTEND_URL, or it names the console's own page): it gets a code, not a token. */
export const isBuiltInConsole = (env: Env) => !env.FRONTEND_URL || env.FRONTEND_URL === consoleLanding(env);
