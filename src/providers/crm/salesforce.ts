import { bearer, callSite, ReviewSiteError, trimSlash } from "../review-sites/types";
import { blankToNull, type CrmClient, type CrmPage, type FetchFn } from "./types";

export const SALESFORCE_API_VERSION = "v60.0";
const SOQL =
  "SELECT Id, Email, Phone, FirstName, LastName, CreatedDate, LastModifiedDate FROM Contact ORDER BY CreatedDate, Id";

interface SoqlResult {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: {
    Id: string;
    Email?: string | null;
    Phone?: string | null;
    FirstName?: string | null;
    LastName?: string | null;
    CreatedDate?: string;
    LastModifiedDate?: string;
  }[];
}

/**
 * Salesforce REST SOQL query with an OAuth access token (Bearer):
 * GET {instanceUrl}/services/data/v60.0/query?q=SOQL, then GET {instanceUrl}{nextRecordsUrl} until done.
 */
export class SalesforceClient implements CrmClient {
  readonly system = "salesforce" as const;
  private readonly base: string;
  constructor(
    private readonly o: { instanceUrl: string; accessToken: string },
    private readonly fetchFn: FetchFn,
  ) {
    this.base = trimSlash(o.instanceUrl);
  }

  private query(soql: string) {
    return `${this.base}/services/data/${SALESFORCE_API_VERSION}/query?q=${encodeURIComponent(soql)}`;
  }

  async listContacts(cursor: string | null): Promise<CrmPage> {
    // the cursor is Salesforce's nextRecordsUrl: a path on the same instance, never a full URL
    if (cursor && !/^\/services\/data\/v[\d.]+\/query\/[\w-]+$/.test(cursor))
      throw new ReviewSiteError("salesforce", 400, "unexpected nextRecordsUrl");
    const url = cursor ? `${this.base}${cursor}` : this.query(SOQL);
    const body = await callSite<SoqlResult>("salesforce", this.fetchFn, url, { headers: bearer(this.o.accessToken) });
    return {
      contacts: (body.records ?? []).map((r) => ({
        externalId: r.Id,
        email: blankToNull(r.Email),
        phone: blankToNull(r.Phone),
        firstName: blankToNull(r.FirstName),
        lastName: blankToNull(r.LastName),
        createdAt: r.CreatedDate ?? null,
        updatedAt: r.LastModifiedDate ?? null,
      })),
      nextCursor: body.done ? null : (body.nextRecordsUrl ?? null),
    };
  }

  async testConnection() {
    await callSite("salesforce", this.fetchFn, this.query("SELECT Id FROM Contact LIMIT 1"), {
      headers: bearer(this.o.accessToken),
    });
  }
}
