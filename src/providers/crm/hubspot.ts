import { bearer, callSite, trimSlash } from "../review-sites/types";
import { blankToNull, type CrmClient, type CrmPage, type FetchFn } from "./types";

export const HUBSPOT_API = "https://api.hubapi.com";
const PROPERTIES = "email,phone,firstname,lastname";

interface HubSpotList {
  results: { id: string; properties: Record<string, string | null>; createdAt?: string; updatedAt?: string }[];
  paging?: { next?: { after: string; link?: string } };
}

/**
 * HubSpot CRM v3 contacts with a private-app token (Bearer):
 * GET /crm/v3/objects/contacts?limit=100&properties=...&after=<paging.next.after>.
 */
export class HubSpotClient implements CrmClient {
  readonly system = "hubspot" as const;
  private readonly base: string;
  constructor(
    private readonly o: { accessToken: string; baseUrl?: string },
    private readonly fetchFn: FetchFn,
  ) {
    this.base = trimSlash(o.baseUrl ?? HUBSPOT_API);
  }

  private url(limit: number, after: string | null) {
    const u = new URL(`${this.base}/crm/v3/objects/contacts`);
    u.searchParams.set("limit", String(limit));
    u.searchParams.set("properties", PROPERTIES);
    if (after) u.searchParams.set("after", after);
    return u.toString();
  }

  async listContacts(cursor: string | null): Promise<CrmPage> {
    const body = await callSite<HubSpotList>("hubspot", this.fetchFn, this.url(100, cursor), {
      headers: bearer(this.o.accessToken),
    });
    return {
      contacts: (body.results ?? []).map((r) => ({
        externalId: String(r.id),
        email: blankToNull(r.properties?.email),
        phone: blankToNull(r.properties?.phone),
        firstName: blankToNull(r.properties?.firstname),
        lastName: blankToNull(r.properties?.lastname),
        createdAt: r.createdAt ?? null,
        updatedAt: r.updatedAt ?? null,
      })),
      nextCursor: body.paging?.next?.after ?? null,
    };
  }

  async testConnection() {
    await callSite("hubspot", this.fetchFn, this.url(1, null), { headers: bearer(this.o.accessToken) });
  }
}
