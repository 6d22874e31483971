import { z } from "@hono/zod-openapi";
import type { TenantRole } from "../../../db/schema";
import type { ServiceContext } from "../../../lib/context";
import type { TenantAccess } from "../../identity/access";
import type { JobRow } from "../../jobs/schemas";
import type { Scope } from "../../oauth/scopes";
import type { SessionIdentity } from "../identity";
import { describeUntrusted } from "./untrusted";

/** What a skill handler receives: a ServiceContext for the resolved tenant, plus who is calling. */
export interface SkillContext extends ServiceContext {
  caller: SessionIdentity;
  /**
   * The caller's access to the tenant, as the one access check resolved it for this call
   * (identity/access.ts; skills/run.ts sets it on every MCP call). Absent only when an agent calls a read
   * skill as its tool without a door's access (the service's own reply drafting).
   */
  access?: TenantAccess;
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
  /** a write that removes or overwrites something (destructiveHint) */
  destructive?: boolean;
  /** calling it again with the same input has no further effect (idempotentHint); reads always are */
  idempotent?: boolean;
  /** it reaches beyond this service: sends a message, publishes on a review site (openWorldHint) */
  openWorld?: boolean;
  /**
   * The user must confirm the call; returns the question shown to them, or null when this input
   * changes nothing that needs it (e.g. an agent asked not to save). Clients with form elicitation
   * ask it (a form with one checkbox); for the others the call is refused with a link to the
   * console's confirm page, and the retry runs once a person confirmed there (skills/run.ts
   * confirmGate, mcp/confirmations.ts, mcp/confirm-in-browser.ts). No code reaches the model.
   */
  confirm?(input: z.infer<I>): string | null;
  /**
   * Paths in the output that hold outsider text (review text, feedback, survey and SMS replies, or
   * model text made from them), e.g. "data[].text": the result and the description say so (untrusted.ts).
   */
  untrusted?: string[];
  /** the structuredContent's schema (the operation's output: mcp/skills/operation.ts) */
  output?: z.ZodType;
  /** accepts a tenantId input, honoured only in an agency OAuth session */
  agencyAware?: boolean;
  /** offered only in an agency OAuth session */
  agencyOnly?: boolean;
  /** offered only to a signed-in platform_admin (re-checked on every call) */
  platformOnly?: boolean;
  /** which credentials may see and call it at all, beyond its scopes (e.g. signed-in users only); default all */
  callers?(caller: SessionIdentity): boolean;
  /** for user callers (OAuth, session JWT): the tenant role the call needs */
  minRole?: TenantRole;
  /** returns a JSON object: it becomes structuredContent and the JSON text block */
  handler(ctx: SkillContext, input: z.infer<I>): Promise<object>;
  /**
   * A long job: to a 2026-07-28 client that declares the tasks extension the call answers a task
   * handle at once and the job runs in the background (mcp/tasks.ts); every other client gets
   * `handler`'s synchronous answer. `start` stores the job (a `jobs` row of type `kind`, owned by
   * `owner`) and queues it; `settle` brings the row up to date before tasks/get reads it; `unit` is what
   * its done/total count (McpDoor.longJob, src/lib/operation.ts).
   */
  longJob?: {
    kind: JobRow["type"];
    unit: string;
    start(ctx: SkillContext, input: z.infer<I>, owner: string): Promise<JobRow>;
    settle?(ctx: ServiceContext, job: JobRow): Promise<JobRow>;
  };
}

const skills = new Map<string, Skill>();

const TenantIdInput = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe("Agency sessions only: the tenant to act for (see agency.list-tenants). Ignored for other credentials.");

/** A skill as served: an agency-aware skill gets the optional tenantId input. No side effect. */
export function skill<I extends ObjectSchema>(def: Skill<I>): Skill<I> {
  const input: ObjectSchema = def.agencyAware ? def.input.extend({ tenantId: TenantIdInput }) : def.input;
  return { ...def, input } as unknown as Skill<I>;
}

/**
 * Puts skills in the catalogue the MCP server lists and calls: the composition root's list
 * (src/wiring.ts) when an isolate starts serving, test-only skills in tests. The same skill twice is
 * a no-op; two different skills with one name are an error.
 */
export function registerSkills(list: readonly Skill[]): void {
  for (const s of list) {
    const known = skills.get(s.name);
    if (known && known !== s) throw new Error(`skill ${s.name} registered twice`);
    skills.set(s.name, s);
  }
}

/**
 * The catalogue is exactly `list`, dropping any other skill: a test file that registered skills of its
 * own (test/mcp/skills.test.ts) must not hand them to the next file of a shared process.
 */
export function installSkills(list: readonly Skill[]): void {
  skills.clear();
  registerSkills(list);
}

export const allSkills = (): Skill[] => [...skills.values()].sort((a, b) => a.name.localeCompare(b.name));
export const findSkill = (name: string): Skill | undefined => skills.get(name);

/** Whether the session may see and call the skill (scopes first; role is checked per call). */
export function skillAllowed(skill: Skill, caller: SessionIdentity): boolean {
  if (skill.agencyOnly && !caller.agencySession) return false;
  if (skill.platformOnly && !caller.platformAdmin) return false;
  if (skill.callers && !skill.callers(caller)) return false;
  if (skill.scopes === null) return true;
  return skill.scopes.some((s) => caller.scopes.includes(s));
}

export const inputJsonSchema = (skill: Skill) => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(skill.input, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return schema as { type: "object"; [k: string]: unknown };
};

export const annotations = (skill: Skill) => ({
  title: skill.title,
  readOnlyHint: skill.access === "read",
  destructiveHint: skill.access === "write" ? Boolean(skill.destructive) : false,
  idempotentHint: skill.access === "read" || Boolean(skill.idempotent),
  openWorldHint: Boolean(skill.openWorld),
});

/** Whether the skill names its structuredContent's schema (test/mcp/output-schemas.test.ts requires it of every skill). */
export const declaresOutput = (skill: Skill) => Boolean(skill.output);

/** The zod schema of the skill's structuredContent; any JSON object for a skill that declares none yet. */
export const outputSchema = (skill: Skill): z.ZodType => skill.output ?? z.record(z.string(), z.unknown());

export const outputJsonSchema = (skill: Skill) => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(outputSchema(skill), {
    io: "output",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return schema as { type: "object"; [k: string]: unknown };
};

/** One icon for every tool and for the server (2025-11-25+ clients show it next to the name). */
export const icons = (base: string) => [{ src: `${base}/mcp/icon.svg`, mimeType: "image/svg+xml", sizes: ["any"] }];

/** The tools/list entry. */
export const toolDefinition = (skill: Skill, base: string) => ({
  name: skill.name,
  title: skill.title,
  description: describeUntrusted(skill.description, skill.untrusted),
  inputSchema: inputJsonSchema(skill),
  outputSchema: outputJsonSchema(skill),
  annotations: annotations(skill),
  icons: icons(base),
});

/** The public catalog entry (GET /mcp/skills). */
export const catalogEntry = (skill: Skill) => ({
  name: skill.name,
  title: skill.title,
  description: describeUntrusted(skill.description, skill.untrusted),
  inputSchema: inputJsonSchema(skill),
  outputSchema: outputJsonSchema(skill),
  requiredScope: skill.scopes === null ? null : skill.scopes.length === 1 ? skill.scopes[0]! : skill.scopes,
  access: skill.access,
  agencyOnly: Boolean(skill.agencyOnly),
  platformOnly: Boolean(skill.platformOnly),
  confirmation: Boolean(skill.confirm),
  annotations: annotations(skill),
  // whether the tool may answer a task handle (tasks extension, docs/mcp.md "Tasks (long jobs)"); the 2026-07-28 wire has no per-tool field for it
  taskSupport: skill.longJob ? "optional" : "forbidden",
});
