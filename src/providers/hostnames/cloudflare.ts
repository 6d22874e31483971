import { type CustomHostnameProvider, type FetchLike, HostnameProviderError, type ProvidedHostname } from "./types";

export const CLOUDFLARE_API_BASE = "https://api.cloudflare.com/client/v4";

export interface CloudflareConfig {
  apiToken: string;
  zoneId: string;
  /** tests and local stand-ins; default CLOUDFLARE_API_BASE */
  baseUrl?: string;
}

/** Cloudflare's v4 envelope: {success, errors: [{code, message}], messages, result}. */
interface Envelope<T> {
  success: boolean;
  errors?: { code?: number; message?: string }[];
  result?: T | null;
}

interface CfHostname {
  id: string;
  hostname: string;
  status?: string;
  ssl?: {
    status?: string;
    validation_records?: { txt_name?: string; txt_value?: string; http_url?: string; http_body?: string }[];
    validation_errors?: { message?: string }[];
  } | null;
  ownership_verification?: { type?: string; name?: string; value?: string } | null;
  verification_errors?: string[];
}

/** Error codes Cloudflare answers when the hostname itself is refused (duplicate, invalid, banned). */
const REJECTED_CODES = new Set([1406, 1407, 1409, 1411, 1413, 1414, 1415, 1417]);

function toProvided(r: CfHostname): ProvidedHostname {
  const ov = r.ownership_verification;
  return {
    id: r.id,
    hostname: r.hostname,
    status: r.status ?? "pending",
    sslStatus: r.ssl?.status ?? null,
    ownership: ov?.name && ov.value ? { type: ov.type ?? "txt", name: ov.name, value: ov.value } : null,
    ssl: (r.ssl?.validation_records ?? []).map((v) => ({
      txtName: v.txt_name ?? null,
      txtValue: v.txt_value ?? null,
      httpUrl: v.http_url ?? null,
      httpBody: v.http_body ?? null,
    })),
    errors: [
      ...(r.verification_errors ?? []),
      ...(r.ssl?.validation_errors ?? []).map((e) => e.message ?? "").filter(Boolean),
    ],
  };
}

/**
 * Cloudflare for SaaS custom hostnames (POST/GET/DELETE /zones/{zone_id}/custom_hostnames), Bearer
 * API token with the "SSL and Certificates: Edit" permission on the SaaS zone. Certificates are
 * validated over HTTP (DV), which Cloudflare completes by itself once the hostname's CNAME points
 * at the zone's fallback origin.
 */
export class CloudflareCustomHostnames implements CustomHostnameProvider {
  readonly name = "cloudflare";
  private readonly base: string;

  constructor(
    private readonly config: CloudflareConfig,
    private readonly fetchFn: FetchLike = (input, init) => fetch(input, init),
  ) {
    this.base = `${(config.baseUrl ?? CLOUDFLARE_API_BASE).replace(/\/+$/, "")}/zones/${encodeURIComponent(config.zoneId)}/custom_hostnames`;
  }

  async create(hostname: string): Promise<ProvidedHostname> {
    const body = { hostname, ssl: { method: "http", type: "dv", settings: { min_tls_version: "1.2" } } };
    const r = await this.call<CfHostname>("POST", this.base, body);
    return toProvided(r!);
  }

  async get(id: string): Promise<ProvidedHostname | null> {
    const r = await this.call<CfHostname>("GET", `${this.base}/${encodeURIComponent(id)}`, undefined, true);
    return r ? toProvided(r) : null;
  }

  async delete(id: string): Promise<void> {
    await this.call("DELETE", `${this.base}/${encodeURIComponent(id)}`, undefined, true);
  }

  private async call<T>(method: string, url: string, body?: unknown, notFoundIsNull = false): Promise<T | null> {
    let res: Response;
    try {
      res = await this.fetchFn(url, {
        method,
        headers: {
          authorization: `Bearer ${this.config.apiToken}`,
          ...(body ? { "content-type": "application/json" } : {}),
          accept: "application/json",
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (e) {
      throw new HostnameProviderError(`cloudflare: ${String((e as Error).message ?? e)}`, true);
    }
    if (res.status === 404 && notFoundIsNull) return null;
    const envelope = (await res.json().catch(() => null)) as Envelope<T> | null;
    if (res.ok && envelope?.success) return envelope.result ?? null;
    const errors = envelope?.errors ?? [];
    const message = errors.map((e) => `${e.code ?? ""} ${e.message ?? ""}`.trim()).join("; ") || `HTTP ${res.status}`;
    const retryable = res.status === 429 || res.status >= 500;
    const rejected =
      !retryable &&
      (res.status === 409 ||
        errors.some((e) => e.code !== undefined && REJECTED_CODES.has(e.code)) ||
        res.status === 400);
    throw new HostnameProviderError(`cloudflare: ${message}`, retryable, res.status, rejected);
  }
}
