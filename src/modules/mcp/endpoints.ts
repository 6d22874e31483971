import type { Env } from "../../env";
import {
  mcpReadonlyResourceUrl,
  mcpResourceUrl,
  readonlyResourceMetadataUrl,
  resourceMetadataUrl,
} from "../../lib/urls";

/**
 * An MCP endpoint of this service. Each is an OAuth protected resource of its own (RFC 8707
 * audience, RFC 9728 metadata): a token is accepted only where it was issued for (docs/mcp.md,
 * "Read-only endpoint").
 */
export interface McpEndpoint {
  path: string;
  /** serves only tools whose access is "read" (readOnlyHint: true) */
  readOnly: boolean;
  resource(env: Env): string;
  /** where the WWW-Authenticate challenge points (RFC 9728 resource_metadata) */
  metadataUrl(env: Env): string;
  resourceName: string;
}

export const FULL_ENDPOINT: McpEndpoint = {
  path: "/mcp",
  readOnly: false,
  resource: mcpResourceUrl,
  metadataUrl: resourceMetadataUrl,
  resourceName: "Reputation Operations MCP server",
};

export const READONLY_ENDPOINT: McpEndpoint = {
  path: "/mcp/readonly",
  readOnly: true,
  resource: mcpReadonlyResourceUrl,
  metadataUrl: readonlyResourceMetadataUrl,
  resourceName: "Reputation Operations MCP server (read-only tools)",
};

/** The endpoint a request path names (the routes mount exactly these two paths). */
export const endpointOf = (path: string): McpEndpoint =>
  path === READONLY_ENDPOINT.path ? READONLY_ENDPOINT : FULL_ENDPOINT;
