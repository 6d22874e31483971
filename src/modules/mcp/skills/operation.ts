import { z } from "@hono/zod-openapi";
import { checkedInput, fromMcpInput, mcpInputOf, type Operation } from "../../../lib/operation";
import type { Scope } from "../../oauth/scopes";
import { type Skill, type SkillContext, skill } from "./registry";

/*
 * The MCP door of an operation (src/lib/operation.ts): the skill `skill()` would build from it, with
 * the operation's name, description, input (the REST fields as JSON, mcpInputOf), output schema,
 * scopes, role, annotations, confirmation and untrusted paths. Nothing of the tool is written twice.
 */

/** Which operation each derived skill came from (test/mcp/input-parity.test.ts checks the twins by identity). */
const origins = new WeakMap<Skill, Operation>();

export function skillOf(op: Operation): Skill {
  const door = op.mcp;
  if (!door) throw new Error(`${op.name} has no MCP door`);
  // an array output goes to MCP inside an object (McpDoor.wrap); its untrusted paths move with it
  const wrap = door.wrap;
  const made = skill({
    name: op.name,
    title: door.title,
    description: door.description ?? op.description ?? op.summary,
    input: mcpInputOf(op),
    scopes: [...(door.scopes ?? op.scopes)] as Scope[],
    access: op.access,
    destructive: op.destructive,
    idempotent: op.idempotent,
    openWorld: op.openWorld,
    ...(op.confirm
      ? { confirm: (input: Record<string, unknown>) => op.confirm!(fromMcpInput(op, input) as never) }
      : {}),
    untrusted: wrap ? op.untrusted?.map((p) => `${wrap}${p}`) : op.untrusted,
    output: wrap ? z.object({ [wrap]: op.output }) : op.output,
    agencyAware: door.agencyAware,
    minRole: op.minRole,
    handler: async (ctx: SkillContext, input: Record<string, unknown>) => {
      // the tenantId and confirm inputs belong to the MCP door, not to the operation
      const { tenantId: _tenant, confirm: _confirm, ...rest } = input;
      const result = await op.handler(
        { ...ctx, scopes: ctx.caller.scopes },
        checkedInput(op, fromMcpInput(op, rest)) as never,
      );
      return (wrap ? { [wrap]: result } : result) as object;
    },
  }) as unknown as Skill;
  origins.set(made, op);
  return made;
}

/** The operation an MCP skill was derived from, or undefined for a skill written by hand. */
export const operationOf = (s: Skill): Operation | undefined => origins.get(s);
