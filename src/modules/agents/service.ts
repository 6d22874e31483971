import type { OperationContext } from "../../lib/operation";
import { exposedAgents } from "./registry";
import { runAgentByName } from "./runtime";
import { callerScopes } from "./tools";
import { agentMayWrite } from "./types";

/**
 * Runs an exposed agent for its caller (REST POST /v1/agents/{name}/run and each agent's MCP tool): the
 * agent's tools run with the caller's own scopes (a signed-in user's: every read, tools.ts), and it may
 * write only when the access its door resolved allows (identity/access.ts, the one access check).
 */
export const runAgentFor = (ctx: OperationContext, name: string, input: unknown) =>
  runAgentByName(
    {
      ...ctx,
      canWrite: agentMayWrite(ctx.access),
      scopes: callerScopes(ctx.scopes),
    },
    name,
    input,
  );

/** GET /v1/agents: names, titles and descriptions. */
export const listAgents = () => ({
  data: exposedAgents().map((a) => ({ name: a.name, title: a.title, description: a.description, tools: a.tools })),
});
