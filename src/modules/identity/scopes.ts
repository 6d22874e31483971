/** The API key / OAuth scopes (interface-spec, Authentication item 11). */
export const API_SCOPES = [
  "read:reviews",
  "read:feedback",
  "read:surveys",
  "read:contacts",
  "read:campaigns",
  "read:locations",
  "read:score",
  "read:competitors",
  "read:recommendations",
  "read:approvals",
  "write:contacts",
  "write:responses",
  "write:campaigns",
  "write:reviews",
  "agent:*",
  "write:inbox",
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export const DEFAULT_API_KEY_SCOPES = API_SCOPES.filter((s) => s.startsWith("read:"));

/**
 * REST routes an API key may reach, by path prefix under /v1: reads need one of `read`, writes need
 * one of `write`. Routes not listed here (users, api-keys, audit, settings, ...) are closed to keys.
 * More specific prefixes come first.
 */
const REST_SCOPES: { prefix: string; read: ApiScope[]; write: ApiScope[] }[] = [
  { prefix: "/v1/responses/approval-queue", read: ["read:approvals", "read:reviews"], write: [] },
  { prefix: "/v1/reviews", read: ["read:reviews"], write: [] },
  { prefix: "/v1/responses", read: ["read:reviews"], write: [] },
  { prefix: "/v1/inbox", read: ["read:reviews", "read:feedback"], write: [] },
  { prefix: "/v1/feedback", read: ["read:feedback"], write: [] },
  { prefix: "/v1/surveys", read: ["read:surveys"], write: [] },
  { prefix: "/v1/contacts", read: ["read:contacts"], write: ["write:contacts"] },
  { prefix: "/v1/campaigns", read: ["read:campaigns"], write: [] },
  { prefix: "/v1/templates", read: ["read:campaigns"], write: [] },
  { prefix: "/v1/solicitations", read: ["read:campaigns"], write: [] },
  { prefix: "/v1/locations", read: ["read:locations"], write: [] },
  { prefix: "/v1/brands", read: ["read:locations"], write: [] },
  { prefix: "/v1/regions", read: ["read:locations"], write: [] },
  { prefix: "/v1/scores", read: ["read:score"], write: [] },
  { prefix: "/v1/competitors", read: ["read:competitors"], write: [] },
  { prefix: "/v1/recommendations", read: ["read:recommendations"], write: [] },
];

const isRead = (method: string) => method === "GET" || method === "HEAD";

/** The scopes that admit a REST call (any one suffices); an empty list means keys may not call it. */
export function scopesForRequest(method: string, path: string): readonly ApiScope[] {
  const entry = REST_SCOPES.find((e) => path === e.prefix || path.startsWith(`${e.prefix}/`));
  if (!entry) return [];
  return isRead(method.toUpperCase()) ? entry.read : entry.write;
}
