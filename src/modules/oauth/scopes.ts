/** The OAuth scopes of the interface spec and what each unlocks (shown on the consent page). */
export const SCOPES = {
  "read:reviews": "Read reviews, review summaries and review items in the inbox",
  "read:feedback": "Read feedback items in the inbox and survey responses",
  "read:surveys": "Read surveys and their statistics",
  "read:contacts": "Read contacts and their consent state",
  "read:campaigns": "Read campaigns, their templates, sequences and metrics",
  "read:locations": "Read and search locations",
  "read:score": "Read location reputation scores",
  "read:competitors": "Read tracked competitors",
  "read:recommendations": "Read recommendations",
  "read:approvals": "Read drafts awaiting approval",
  "write:contacts": "Suppress contacts (stop all messages to them) and import contacts from CSV",
  "write:responses": "Approve, reject and edit drafted review replies, and mark approved ones as posted by hand",
  "write:campaigns": "Send campaigns to the contacts of a CSV (bulk send)",
  "write:reviews": "Fetch reviews from the connected review sites now (review sync)",
  "agent:*": "Run the AI agent skills",
  "write:inbox": "Assign, tag and close inbox items (of the kinds it can read)",
} as const;

export type Scope = keyof typeof SCOPES;

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];
/** The default grant when a client asks for nothing specific, and the baseline clients request first. */
export const READ_SCOPES = ALL_SCOPES.filter((s) => s.startsWith("read:"));

export const isScope = (s: string): s is Scope => s in SCOPES;
