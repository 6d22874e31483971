import type { Env } from "../../env";
import { CloudflareCustomHostnames } from "./cloudflare";
import type { CustomHostnameProvider } from "./types";

let override: CustomHostnameProvider | null = null;

/** Tests (and local tooling) put a client pointed at a stand-in here; null restores the env's. */
export const useCustomHostnameProvider = (p: CustomHostnameProvider | null) => {
  override = p;
};

/**
 * The custom hostname provider: Cloudflare for SaaS when CLOUDFLARE_API_TOKEN and
 * CLOUDFLARE_ZONE_ID are set (CLOUDFLARE_API_BASE_URL may point at a stand-in), else none.
 */
export function customHostnameProvider(env: Env): CustomHostnameProvider | null {
  if (override) return override;
  if (!env.CLOUDFLARE_API_TOKEN || !env.CLOUDFLARE_ZONE_ID) return null;
  return new CloudflareCustomHostnames({
    apiToken: env.CLOUDFLARE_API_TOKEN,
    zoneId: env.CLOUDFLARE_ZONE_ID,
    baseUrl: env.CLOUDFLARE_API_BASE_URL,
  });
}
