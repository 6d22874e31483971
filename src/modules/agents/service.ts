import type { ServiceContext } from "../../lib/context";
import type { TenantAccess } from "../identity/access";
import { exposedAgents } from "./registry";
import { runAgentByName } from "./runtime";

/** REST: the agent runs with the caller's scopes (tools.ts callerScopes). */
export const runAgentFor = (
  ctx: ServiceContext,
  access: { canWrite: boolean; access: TenantAccess; scopes: readonly string[] },
  name: string,
  input: unknown,
) => runAgentByName({ ...ctx, ...access }, name, input);

/** GET /v1/agents: names, titles and descriptions. */
export const listAgents = () => ({
  data: exposedAgents().map((a) => ({ name: a.name, title: a.title, description: a.description, tools: a.tools })),
});
