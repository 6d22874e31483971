export type FetchFn = typeof fetch;

/** One person as the CRM reports it, normalised. */
export interface CrmContact {
  externalId: string;
  email: string | null;
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  /** the CRM's own timestamps, kept in sourceMetadata */
  createdAt: string | null;
  updatedAt: string | null;
}

export interface CrmPage {
  contacts: CrmContact[];
  /** opaque; null on the last page */
  nextCursor: string | null;
}

/** A CRM's contact API for one connected account. */
export interface CrmClient {
  readonly system: "hubspot" | "salesforce";
  listContacts(cursor: string | null): Promise<CrmPage>;
  /** one cheap authenticated read; throws the CRM's refusal */
  testConnection(): Promise<void>;
}

export const blankToNull = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);
