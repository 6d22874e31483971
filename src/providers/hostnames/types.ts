/** A custom hostname as the provider (Cloudflare for SaaS) reports it. */
export interface ProvidedHostname {
  id: string;
  hostname: string;
  /** Cloudflare's hostname status: pending, active, moved, deleted, blocked, ... */
  status: string;
  /** the certificate's status: initializing, pending_validation, pending_issuance, pending_deployment, active, ... */
  sslStatus: string | null;
  /** the TXT record proving ownership, while the hostname is not verified */
  ownership: { type: string; name: string; value: string } | null;
  /** certificate validation records (DCV), while the certificate is pending */
  ssl: { txtName: string | null; txtValue: string | null; httpUrl: string | null; httpBody: string | null }[];
  /** what the provider says is wrong (verification and validation errors) */
  errors: string[];
}

/** Create, read and delete custom hostnames; transient failures throw HostnameProviderError(retryable). */
export interface CustomHostnameProvider {
  readonly name: string;
  create(hostname: string): Promise<ProvidedHostname>;
  /** null: the provider does not know this id (deleted there) */
  get(id: string): Promise<ProvidedHostname | null>;
  delete(id: string): Promise<void>;
}

export class HostnameProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** the provider refused the hostname itself (taken, invalid, blocked): a 409 for the caller */
    readonly rejected = false,
  ) {
    super(message);
    this.name = "HostnameProviderError";
  }
}

export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
