import { HubSpotClient } from "./hubspot";
import { SalesforceClient } from "./salesforce";
import type { CrmClient, FetchFn } from "./types";

export const CRM_SYSTEMS = ["hubspot", "salesforce"] as const;
export type CrmSystem = (typeof CRM_SYSTEMS)[number];
export const isCrm = (s: string): s is CrmSystem => (CRM_SYSTEMS as readonly string[]).includes(s);

/** What each CRM needs: config keys (not secret) and credential keys (secret). */
export const CRM_REQUIREMENTS: Record<CrmSystem, { config: string[]; credentials: string[] }> = {
  hubspot: { config: [], credentials: ["accessToken"] },
  salesforce: { config: ["instanceUrl"], credentials: ["accessToken"] },
};

/** A production Salesforce instance URL: https on Salesforce's own domains. */
export const isSalesforceInstanceUrl = (raw: string) => {
  try {
    const u = new URL(raw);
    return (
      u.protocol === "https:" &&
      !u.username &&
      !u.password &&
      /(^|\.)(salesforce\.com|force\.com|salesforce\.mil|cloudforce\.com)$/.test(u.hostname)
    );
  } catch {
    return false;
  }
};

export interface CrmConnection {
  connectorType: CrmSystem;
  isSandbox: boolean;
  config: Record<string, unknown>;
  credentials: Record<string, string>;
}

const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

/** config.apiBaseUrl (a stand-in) is honoured only on sandbox integrations, as for review sites. */
export function crmClient(conn: CrmConnection, fetchFn: FetchFn): CrmClient {
  const override = conn.isSandbox ? str(conn.config.apiBaseUrl) : undefined;
  const accessToken = conn.credentials.accessToken ?? "";
  switch (conn.connectorType) {
    case "hubspot":
      return new HubSpotClient({ accessToken, baseUrl: override }, fetchFn);
    case "salesforce":
      return new SalesforceClient({ instanceUrl: override ?? String(conn.config.instanceUrl), accessToken }, fetchFn);
  }
}

export type { CrmClient, CrmContact, CrmPage, FetchFn } from "./types";
