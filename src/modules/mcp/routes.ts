import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, json } from "../../lib/openapi";
import { READ_SCOPES } from "../oauth/scopes";
import { baseUrl, mcpResourceUrl, PROTOCOL_VERSIONS } from "./config";
import { handleMcp } from "./http";
import { allSkills, catalogEntry } from "./skills/registry";

const tags = ["MCP"];

const SkillSchema = z
  .object({
    name: z.string(),
    title: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema of the tool's arguments" }),
    requiredScope: z.union([z.string(), z.array(z.string())]).nullable().openapi({ description: "the OAuth scope (or any one of several) the skill needs; null for agency-session skills" }),
    access: z.enum(["read", "write"]),
    agencyOnly: z.boolean(),
    annotations: z.record(z.string(), z.unknown()),
  })
  .openapi("McpSkill");

const Catalog = z.object({ skills: z.array(SkillSchema), endpoint: z.string(), protocolVersions: z.array(z.string()) }).openapi("McpSkillCatalog");

const catalogRoute = (path: string) =>
  createRoute({
    method: "get", path, tags, summary: "The MCP skills catalog (public)",
    description: "Every skill the MCP server offers: name, description, input JSON Schema, required OAuth scope, read or write. A session sees only the skills its scopes allow.",
    responses: { 200: json(Catalog) },
  });

const healthRoute = createRoute({
  method: "get", path: "/mcp/health", tags, summary: "MCP liveness probe",
  responses: { 200: json(z.object({ status: z.string(), transport: z.string(), protocolVersions: z.array(z.string()), skills: z.number().int() }).openapi("McpHealth")) },
});

const catalog = (env: Parameters<typeof mcpResourceUrl>[0]) => ({
  skills: allSkills().map(catalogEntry),
  endpoint: mcpResourceUrl(env),
  protocolVersions: [...PROTOCOL_VERSIONS],
});

/** RFC 9728 protected resource metadata for {base_url}/mcp. */
const protectedResource = (env: Parameters<typeof baseUrl>[0]) => ({
  resource: mcpResourceUrl(env),
  authorization_servers: [baseUrl(env)],
  scopes_supported: READ_SCOPES,
  bearer_methods_supported: ["header"],
  resource_name: "Reputation Operations MCP server",
  resource_documentation: `${baseUrl(env)}/docs`,
});

const publicJson = { "Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=300" };

export const mcpRoutes = createRouter()
  .openapi(catalogRoute("/mcp/skills"), (c) => c.json(catalog(c.env), 200))
  .openapi(catalogRoute("/skills"), (c) => c.json(catalog(c.env), 200))
  .openapi(healthRoute, (c) => c.json({ status: "ok", transport: "streamable-http", protocolVersions: [...PROTOCOL_VERSIONS], skills: allSkills().length }, 200));

// not REST: the MCP transport and OAuth discovery documents stay out of the OpenAPI description
mcpRoutes.on(["GET", "POST", "DELETE", "OPTIONS", "PUT", "PATCH"], "/mcp", handleMcp);
for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
  mcpRoutes.get(path, (c) => c.json(protectedResource(c.env), 200, publicJson));
  mcpRoutes.options(path, () => new Response(null, { status: 204, headers: { ...publicJson, "Access-Control-Allow-Methods": "GET", "Access-Control-Allow-Headers": "*" } }));
}
