import { createRouter, type Router } from "../../lib/openapi";
import { baseUrl, mcpResourceUrl } from "../../lib/urls";
import { READ_SCOPES } from "../oauth/scopes";
import { PROTOCOL_VERSIONS } from "./config";
import { FULL_ENDPOINT, type McpEndpoint, READONLY_ENDPOINT } from "./endpoints";
import { handleMcp } from "./http";
import { allSkills, catalogEntry } from "./skills/registry";

const publicJson = { "Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=300" };

const catalog = (env: Parameters<typeof mcpResourceUrl>[0]) => ({
  skills: allSkills().map(catalogEntry),
  endpoint: mcpResourceUrl(env),
  protocolVersions: [...PROTOCOL_VERSIONS],
});

/** RFC 9728 protected resource metadata for {base_url}/mcp or {base_url}/mcp/readonly. */
const protectedResource = (env: Parameters<typeof baseUrl>[0], endpoint: McpEndpoint) => ({
  resource: endpoint.resource(env),
  authorization_servers: [baseUrl(env)],
  scopes_supported: READ_SCOPES,
  bearer_methods_supported: ["header"],
  resource_name: endpoint.resourceName,
  resource_documentation: `${baseUrl(env)}/docs`,
});

// Not REST operations: the transport, the catalog and the discovery documents stay out of the
// OpenAPI description (docs/mcp.md describes them).
export const mcpRoutes: Router = createRouter();
mcpRoutes.get("/mcp/skills", (c) => c.json(catalog(c.env), 200, publicJson));
mcpRoutes.get("/skills", (c) => c.json(catalog(c.env), 200, publicJson));
mcpRoutes.get("/mcp/health", (c) =>
  c.json(
    {
      status: "ok",
      transport: "streamable-http",
      protocolVersions: [...PROTOCOL_VERSIONS],
      skills: allSkills().length,
    },
    200,
  ),
);
// the icon tools/list and serverInfo point at (2025-11-25 icons); same-origin, so clients may fetch it
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#2453d6"/><path fill="#fff" d="M32 12l5.9 12 13.1 1.9-9.5 9.3 2.2 13.1L32 42.1l-11.7 6.2 2.2-13.1-9.5-9.3L26.1 24z"/></svg>`;
mcpRoutes.get(
  "/mcp/icon.svg",
  () =>
    new Response(ICON, {
      headers: { ...publicJson, "Content-Type": "image/svg+xml", "X-Content-Type-Options": "nosniff" },
    }),
);
// the read-only endpoint: the same transport, serving only read tools (http.ts tells them apart by path)
for (const endpoint of [FULL_ENDPOINT, READONLY_ENDPOINT]) {
  mcpRoutes.on(["GET", "POST", "DELETE", "OPTIONS", "PUT", "PATCH"], endpoint.path, handleMcp);
}
const METADATA: [string, McpEndpoint][] = [
  ["/.well-known/oauth-protected-resource", FULL_ENDPOINT],
  ["/.well-known/oauth-protected-resource/mcp", FULL_ENDPOINT],
  ["/.well-known/oauth-protected-resource/mcp/readonly", READONLY_ENDPOINT],
];
for (const [path, endpoint] of METADATA) {
  mcpRoutes.get(path, (c) => c.json(protectedResource(c.env, endpoint), 200, publicJson));
  mcpRoutes.options(
    path,
    () =>
      new Response(null, {
        status: 204,
        headers: { ...publicJson, "Access-Control-Allow-Methods": "GET", "Access-Control-Allow-Headers": "*" },
      }),
  );
}
