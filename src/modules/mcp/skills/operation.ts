import { z } from "@hono/zod-openapi";
import {
  type AnyOperationContext,
  bodyOf,
  checkedInput,
  fromMcpInput,
  mcpInputOf,
  noContent,
  type Operation,
} from "../../../lib/operation";
import type { JobRow } from "../../jobs/schemas";
import type { Scope } from "../../oauth/scopes";
import { type Skill, type SkillContext, skill } from "./registry";

/*
 * The MCP door of an operation (src/lib/operation.ts): the skill `skill()` would build from it, with
 * the operation's name, description, input (the REST fields as JSON, mcpInputOf), output schema,
 * scopes, role, annotations, confirmation, untrusted paths and long job. Nothing of the tool is
 * written twice. A platform operation is offered to a platform admin's session only, an agency one to
 * an agency session only (the session's kind decides, not scopes).
 */

/** Which operation each derived skill came from (test/mcp/input-parity.test.ts checks the twins by identity). */
const origins = new WeakMap<Skill, Operation>();

/** The operation's context from the tool call's: the tenant's ServiceContext, the caller's scopes, an agency session's agencies. */
function contextOf(op: Operation, ctx: SkillContext): AnyOperationContext {
  const scopes = ctx.caller.scopes;
  if (op.context === "agency") return { ...ctx, scopes, agencies: ctx.agencyIds };
  return { ...ctx, scopes };
}

export function skillOf(op: Operation): Skill {
  const door = op.mcp;
  if (!door) throw new Error(`${op.name} has no MCP door`);
  // an array output goes to MCP inside an object (McpDoor.wrap); its untrusted paths move with it
  const wrap = door.wrap;
  // structuredContent is an object: a 204 answers {}
  const output = op.output === noContent ? z.object({}) : wrap ? z.object({ [wrap]: op.output }) : op.output;
  const inputOf = (input: Record<string, unknown>) => {
    // the tenantId input belongs to the MCP door, not to the operation
    const { tenantId: _tenant, ...rest } = input;
    return checkedInput(op, fromMcpInput(op, rest));
  };
  const longJob = door.longJob;
  const made = skill({
    name: op.name,
    title: door.title,
    description: door.description ?? op.description ?? op.summary,
    input: mcpInputOf(op),
    scopes: op.context === "tenant" ? ([...(door.scopes ?? op.scopes)] as Scope[]) : null,
    access: op.access,
    destructive: op.destructive,
    idempotent: op.idempotent,
    openWorld: op.openWorld,
    ...(op.context === "platform" ? { platformOnly: true } : {}),
    ...(op.context === "agency" ? { agencyOnly: true } : {}),
    ...(door.callers ? { callers: door.callers } : {}),
    ...(op.confirm
      ? { confirm: (input: Record<string, unknown>) => op.confirm!(fromMcpInput(op, input) as never) }
      : {}),
    untrusted: wrap ? op.untrusted?.map((p) => `${wrap}${p}`) : op.untrusted,
    output,
    agencyAware: door.agencyAware,
    minRole: op.minRole,
    handler: async (ctx: SkillContext, input: Record<string, unknown>) => {
      const result = bodyOf(await op.handler(contextOf(op, ctx), inputOf(input)));
      return (op.output === noContent ? {} : wrap ? { [wrap]: result } : result) as object;
    },
    ...(longJob
      ? {
          longJob: {
            kind: longJob.kind,
            unit: longJob.unit,
            start: (ctx: SkillContext, input: Record<string, unknown>, owner: string) =>
              longJob.start({ ...ctx, scopes: ctx.caller.scopes }, inputOf(input) as never, owner) as Promise<JobRow>,
            ...(longJob.settle ? { settle: longJob.settle as never } : {}),
          },
        }
      : {}),
  }) as unknown as Skill;
  origins.set(made, op);
  return made;
}

/** The operation an MCP skill was derived from, or undefined for a skill written by hand. */
export const operationOf = (s: Skill): Operation | undefined => origins.get(s);
