import { z } from "@hono/zod-openapi";
import type { TenantRole } from "../../../db/schema";
import type { ServiceContext } from "../../../lib/context";
import type { Scope } from "../../oauth/scopes";
import type { SessionIdentity } from "../identity";

/** What a skill handler receives: a ServiceContext for the resolved tenant, plus who is calling. */
export interface SkillContext extends ServiceContext {
  caller: SessionIdentity;
  /** the agencies an agency session reaches, re-read on every call; empty otherwise */
  agencyIds: string[];
}

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

export interface Skill<I extends ObjectSchema = ObjectSchema> {
  name: string;
  title: string;
  /** written for a language model: what it returns, when to use it, how inputs narrow it */
  description: string;
  input: I;
  /** any one of these scopes unlocks the skill; null = no scope (agency-only skills) */
  scopes: Scope[] | null;
  access: "read" | "write";
  destructive?: boolean;
  /** accepts a tenantId input, honoured only in an agency OAuth session */
  agencyAware?: boolean;
  /** offered only in an agency OAuth session */
  agencyOnly?: boolean;
  /** for user callers (OAuth, session JWT): the tenant role the call needs */
  minRole?: TenantRole;
  /** returns a JSON object: it becomes structuredContent and the JSON text block */
  handler(ctx: SkillContext, input: z.infer<I>): Promise<object>;
}

const skills = new Map<string, Skill>();

const TenantIdInput = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe("Agency sessions only: the tenant to act for (see agency.list-tenants). Ignored for other credentials.");

/** Registers a skill; an agency-aware skill gets the optional tenantId input. */
export function defineSkill<I extends ObjectSchema>(skill: Skill<I>): Skill<I> {
  if (skills.has(skill.name)) throw new Error(`skill ${skill.name} registered twice`);
  const input = skill.agencyAware ? skill.input.extend({ tenantId: TenantIdInput }) : skill.input;
  skills.set(skill.name, { ...skill, input } as unknown as Skill);
  return skill;
}

export const allSkills = (): Skill[] => [...skills.values()].sort((a, b) => a.name.localeCompare(b.name));
export const findSkill = (name: string): Skill | undefined => skills.get(name);

/** Whether the session may see and call the skill (scopes first; role is checked per call). */
export function skillAllowed(skill: Skill, caller: SessionIdentity): boolean {
  if (skill.agencyOnly && !caller.agencySession) return false;
  if (skill.scopes === null) return true;
  return skill.scopes.some((s) => caller.scopes.includes(s));
}

export const inputJsonSchema = (skill: Skill) => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(skill.input, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return schema as { type: "object"; [k: string]: unknown };
};

export const annotations = (skill: Skill) => ({
  title: skill.title,
  readOnlyHint: skill.access === "read",
  destructiveHint: skill.access === "write" ? Boolean(skill.destructive) : false,
  idempotentHint: skill.access === "read",
  openWorldHint: false,
});

/** The public catalog entry (GET /mcp/skills). */
export const catalogEntry = (skill: Skill) => ({
  name: skill.name,
  title: skill.title,
  description: skill.description,
  inputSchema: inputJsonSchema(skill),
  requiredScope: skill.scopes === null ? null : skill.scopes.length === 1 ? skill.scopes[0]! : skill.scopes,
  access: skill.access,
  agencyOnly: Boolean(skill.agencyOnly),
  annotations: annotations(skill),
});
