// What both protocol legs serve alike: instructions, server info, the caller's tools.
import { baseUrl } from "../../lib/urls";
import { toolUiMeta, UI_EXTENSION_ID } from "./apps/cards";
import { SERVER_INFO } from "./config";
import { allSkills, icons, skillAllowed, toolDefinition } from "./skills/registry";
import type { CallEnv } from "./skills/run";
import { byName, EVERY_TOOL, inSelection, usableSelection } from "./toolsets";

export { SERVER_INFO };

export const INSTRUCTIONS =
  "Reputation operations for one business (tenant): locations, reviews, inbox, campaigns, contacts and more. " +
  "Each tool says what it returns; lists are newest first; for the next page pass the answer's pageInfo.endCursor as `cursor`. " +
  "In output schemas, every field an object names is present in the answer (null when empty) unless the object lists `required`. " +
  "Agency sessions can act for any tenant of the agency: call agency.list-tenants, then pass tenantId. " +
  "Tools that change something outside a read ask the user to confirm first.";

/** How long a client may cache tools/list (2026-07-28 ttlMs): the list changes only with a deployment. */
export const TOOLS_TTL_MS = 5 * 60 * 1000;

/**
 * The tools this caller may see in this request's selection (endpoint, toolsets, single tools), sorted
 * by name, with input and output schemas and annotations (the icon is the server's: serverInfo).
 */
export const listedTools = (call: Pick<CallEnv, "identity" | "selection" | "protocolVersion">) => {
  const selection = usableSelection(call.selection ?? EVERY_TOOL);
  return allSkills()
    .filter((s) => skillAllowed(s, call.identity) && inSelection(s, selection))
    .sort((a, b) => byName(a.name, b.name))
    .map((s) => withCard(toolDefinition(s, call.protocolVersion)));
};

/** A tool with an MCP Apps card names it in `_meta` (apps/cards.ts); clients without the extension ignore it. */
const withCard = <T extends { name: string }>(tool: T) => {
  const meta = toolUiMeta(tool.name);
  return meta ? { ...tool, _meta: meta } : tool;
};

/**
 * What both legs advertise: tools, the `ui://` card resources (static HTML, the same for every caller)
 * and the MCP Apps extension (io.modelcontextprotocol/ui).
 */
export const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  extensions: { [UI_EXTENSION_ID]: {} },
};

export const serverInfo = (env: CallEnv["env"]) => ({ ...SERVER_INFO, icons: icons(baseUrl(env)) });
