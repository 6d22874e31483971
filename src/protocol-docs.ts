import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "./lib/openapi";

/**
 * Endpoints served outside OpenAPIHono's routes (the MCP transport and catalog, the OAuth endpoints,
 * the reference itself), described briefly with their content types so the document lists every
 * endpoint of the spec. Their wire formats are the MCP and OAuth specifications'; errors there are
 * JSON-RPC or OAuth error objects, not ErrorResponse. Marked `x-protocol`, which the schema-driven
 * fuzzer skips (its rule "every 4xx is an ErrorResponse" is a REST rule).
 */
type Registry = OpenAPIHono["openAPIRegistry"];

const anyJson = z.record(z.string(), z.unknown()).openapi({ description: "JSON defined by the protocol" });
const OAuthError = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .passthrough()
  .openapi("OAuthError", {
    description: "RFC 6749 error (or an ErrorResponse for a request on a host other than the issuer)",
  });
const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const SkillCatalog = z
  .object({
    skills: z.array(
      z
        .object({
          name: z.string(),
          title: z.string().optional(),
          description: z.string(),
          inputSchema: anyJson,
          requiredScope: z.union([z.string(), z.array(z.string())]).nullable(),
          access: z.string(),
          agencyOnly: z.boolean(),
          annotations: anyJson,
        })
        .passthrough(),
    ),
    endpoint: z.string().openapi({ format: "uri" }),
    protocolVersions: z.array(z.string()),
  })
  .openapi("McpSkillCatalog");

const catalog = {
  tags: ["MCP"],
  responses: {
    200: {
      description: "The skills, their input schemas and scopes",
      content: { "application/json": { schema: SkillCatalog } },
    },
  },
  "x-protocol": "mcp",
};

/** What narrows the tools of an MCP request (docs/mcp.md, Toolsets); an unknown name is 400. */
const selectionNames = (what: string) =>
  z
    .string()
    .optional()
    .openapi({ description: `comma-separated ${what}; an unknown name is refused (docs/mcp.md)` });
const mcpHeaders = z.object({
  "mcp-session-id": z.string().optional(),
  "mcp-protocol-version": z.string().optional(),
  "x-mcp-toolsets": selectionNames("toolsets (tool name prefixes, e.g. review,inbox) to list and run"),
  "x-mcp-tools": selectionNames("tool names to list and run, in addition to any toolsets"),
});
const mcpQuery = z.object({
  toolsets: selectionNames("toolsets, as X-MCP-Toolsets"),
  tools: selectionNames("tool names, as X-MCP-Tools"),
});

export function documentProtocolEndpoints(registry: Registry) {
  registry.registerPath({
    method: "post",
    path: "/mcp",
    tags: ["MCP"],
    summary: "MCP Streamable HTTP transport",
    operationId: "sendMcpMessage",
    description:
      "JSON-RPC 2.0 messages of the Model Context Protocol (revisions 2025-06-18 and 2025-03-26; docs/mcp.md). " +
      "`initialize` opens a session returned in `Mcp-Session-Id`, which later requests carry. Authorization: Bearer " +
      "(an API key, or an OAuth access token for the resource {base_url}/mcp); without one 401 with " +
      "`WWW-Authenticate: Bearer resource_metadata=...`. GET (server-sent event stream) and DELETE (end the session) use the same path.",
    security: [{ bearerAuth: [] }],
    request: {
      headers: mcpHeaders,
      query: mcpQuery,
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z
              .union([anyJson, z.array(anyJson)])
              .openapi({ description: "a JSON-RPC request, notification or response (or a batch)" }),
          },
        },
      },
    },
    responses: {
      200: {
        description: "JSON-RPC response(s), as JSON or as a server-sent event stream",
        content: { "application/json": { schema: anyJson }, "text/event-stream": { schema: z.string() } },
      },
      202: { description: "Accepted (a notification or response: no body)" },
      401: {
        description: "No or invalid credential",
        headers: z.object({
          "www-authenticate": z
            .string()
            .openapi({ description: 'Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource"' }),
        }),
        content: { "application/json": { schema: anyJson } },
      },
      default: {
        description: "Transport or JSON-RPC error (403 foreign Origin, 404 unknown session, 406, 413, 429)",
        content: { "application/json": { schema: anyJson } },
      },
    },
    "x-protocol": "mcp",
  });
  registry.registerPath({
    method: "post",
    path: "/mcp/readonly",
    tags: ["MCP"],
    operationId: "sendMcpReadonlyMessage",
    summary: "MCP transport serving only read-only tools",
    description:
      "The same transport and revisions as POST /mcp, listing and running only the tools annotated " +
      "readOnlyHint: true (a write tool is an unknown tool here). Its own OAuth protected resource " +
      "{base_url}/mcp/readonly: a token issued for /mcp is refused here and the other way round (401 with " +
      "`WWW-Authenticate: Bearer resource_metadata=...`, pointing at " +
      "{base_url}/.well-known/oauth-protected-resource/mcp/readonly). docs/mcp.md.",
    security: [{ bearerAuth: [] }],
    request: {
      headers: mcpHeaders,
      query: mcpQuery,
      body: { required: true, content: { "application/json": { schema: z.union([anyJson, z.array(anyJson)]) } } },
    },
    responses: {
      200: { description: "JSON-RPC response(s)", content: { "application/json": { schema: anyJson } } },
      202: { description: "Accepted (a notification or response: no body)" },
      401: {
        description: "No credential, or one not valid for this resource",
        content: { "application/json": { schema: anyJson } },
      },
      default: {
        description: "Transport or JSON-RPC error, as POST /mcp",
        content: { "application/json": { schema: anyJson } },
      },
    },
    "x-protocol": "mcp",
  });
  registry.registerPath({
    method: "get",
    path: "/mcp/skills",
    operationId: "listMcpSkills",
    security: [],
    summary: "MCP skill catalog",
    description: "Public. Also at GET /skills.",
    ...catalog,
  });
  registry.registerPath({
    method: "get",
    path: "/skills",
    operationId: "listSkills",
    security: [],
    summary: "MCP skill catalog (alias of /mcp/skills)",
    ...catalog,
  });
  registry.registerPath({
    method: "get",
    path: "/mcp/health",
    operationId: "checkMcpHealth",
    security: [],
    tags: ["MCP"],
    summary: "MCP liveness probe",
    responses: {
      200: {
        description: "Up",
        content: {
          "application/json": {
            schema: z
              .object({
                status: z.literal("ok"),
                transport: z.string(),
                protocolVersions: z.array(z.string()),
                skills: z.number().int(),
              })
              .openapi("McpHealth"),
          },
        },
      },
    },
    "x-protocol": "mcp",
  });
  registry.registerPath({
    method: "get",
    path: "/mcp/icon.svg",
    tags: ["MCP"],
    summary: "The server's and its tools' icon (MCP 2025-11-25 icons)",
    operationId: "getMcpIcon",
    security: [],
    responses: { 200: { description: "The icon", content: { "image/svg+xml": { schema: z.string() } } } },
    "x-protocol": "mcp",
  });
  registry.registerPath({
    method: "get",
    path: "/oauth/authorize",
    tags: ["OAuth"],
    summary: "OAuth 2.1 authorization (sign-in and consent page)",
    operationId: "authorizeOAuth",
    security: [],
    description:
      "Authorization code flow with PKCE S256 (RFC 6749, MCP authorization). Renders the sign-in and consent page; Allow or Deny redirects to redirect_uri with `code` or `error`.",
    request: {
      query: z.object({
        response_type: z.literal("code"),
        client_id: z.string(),
        redirect_uri: z.string().openapi({ format: "uri" }),
        code_challenge: z.string(),
        code_challenge_method: z.literal("S256"),
        scope: z.string().optional().openapi({ description: "space-separated scopes" }),
        state: z.string().optional(),
        resource: z.string().optional().openapi({ format: "uri", description: "RFC 8707: {base_url}/mcp" }),
      }),
    },
    responses: {
      200: html("The sign-in and consent page"),
      302: {
        description: "To redirect_uri with an error the client may see",
        headers: z.object({ location: z.string() }),
      },
      400: html("Invalid authorization request (unknown client, redirect URI not registered)"),
    },
    "x-protocol": "oauth",
  });
  registry.registerPath({
    method: "post",
    path: "/oauth/token",
    tags: ["OAuth"],
    summary: "OAuth 2.1 token endpoint",
    operationId: "exchangeOAuthToken",
    security: [],
    description:
      "Exchanges an authorization code (with its PKCE verifier) or a refresh token (rotated on use) for an access token (RFC 6749 §4.1.3, §6; RFC 8707 resource).",
    request: {
      body: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: z.object({
              grant_type: z.enum(["authorization_code", "refresh_token"]),
              code: z.string().optional(),
              code_verifier: z.string().optional(),
              redirect_uri: z.string().optional(),
              refresh_token: z.string().optional(),
              client_id: z.string().optional(),
              resource: z.string().optional(),
            }),
          },
        },
      },
    },
    responses: {
      200: {
        description: "Tokens",
        content: {
          "application/json": {
            schema: z
              .object({
                access_token: z.string(),
                token_type: z.string(),
                expires_in: z.number().int(),
                refresh_token: z.string().optional(),
                scope: z.string().optional(),
              })
              .passthrough()
              .openapi("OAuthTokenResponse"),
          },
        },
      },
      400: {
        description: "invalid_request, invalid_grant, ...",
        content: { "application/json": { schema: OAuthError } },
      },
      401: { description: "invalid_client", content: { "application/json": { schema: OAuthError } } },
      404: {
        description: "Not the issuer's host (JSON naming the issuer)",
        content: { "application/json": { schema: OAuthError.or(anyJson) } },
      },
    },
    "x-protocol": "oauth",
  });
  registry.registerPath({
    method: "get",
    path: "/docs",
    operationId: "getApiReference",
    security: [],
    tags: ["System"],
    summary: "Interactive API reference (Swagger UI)",
    responses: { 200: html("The reference page") },
    "x-protocol": "docs",
  });
  registry.registerPath({
    method: "get",
    path: "/docs/openapi.json",
    tags: ["System"],
    summary: "This OpenAPI 3.1 document",
    operationId: "getOpenApiDocument",
    security: [],
    responses: { 200: { description: "The document", content: { "application/json": { schema: anyJson } } } },
    "x-protocol": "docs",
  });
}
