import type { Env } from "../env";

/** The service's own URLs, shared by MCP (the protected resource) and OAuth (its authorization server). */
export const baseUrl = (env: Env) => env.PUBLIC_BASE_URL.replace(/\/+$/, "");
export const mcpResourceUrl = (env: Env) => `${baseUrl(env)}/mcp`;
export const resourceMetadataUrl = (env: Env) => `${baseUrl(env)}/.well-known/oauth-protected-resource`;
/** /mcp/readonly is a protected resource of its own (RFC 8707 audience), with its own RFC 9728 metadata. */
export const mcpReadonlyResourceUrl = (env: Env) => `${baseUrl(env)}/mcp/readonly`;
export const readonlyResourceMetadataUrl = (env: Env) =>
  `${baseUrl(env)}/.well-known/oauth-protected-resource/mcp/readonly`;

/**
 * The console page of a review's inbox item (src/modules/console/pages/inbox.tsx accepts the review's id with
 * `type=review`, so a mail sent as the review arrives links to the item the inbox consumer creates). On the
 * platform's host, where everyone with a role in the tenant signs in.
 */
export const consoleReviewItemUrl = (env: Env, tenantId: string, reviewId: string) =>
  `${baseUrl(env)}/app/t/${encodeURIComponent(tenantId)}/inbox/${encodeURIComponent(reviewId)}?type=review`;
