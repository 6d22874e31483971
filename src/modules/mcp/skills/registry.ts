import { z } from "@hono/zod-openapi";
import type { TenantRole } from "../../../db/schema";
import { compactInputSchema, compactOutputSchema } from "../../../lib/compact-schema";
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

const TenantIdInput = z.string().min(1).max(64).optional().describe("agency sessions only: the tenant to act for");

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

type ObjectJsonSchema = { type: "object"; [k: string]: unknown };

/** A value derived once per skill (a skill is an immutable value; tools/list serves its schemas on every call). */
function perSkill<T>(derive: (skill: Skill) => T): (skill: Skill) => T {
  const known = new WeakMap<Skill, T>();
  return (skill) => {
    if (!known.has(skill)) known.set(skill, derive(skill));
    return known.get(skill)!;
  };
}

/** The JSON Schema of a zod schema, without `$schema` (MCP's tool schemas are 2020-12 by default). */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output") {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return json as ObjectJsonSchema;
}

/** The tool's inputSchema, compacted for a model's context (src/lib/compact-schema.ts). */
export const inputJsonSchema = perSkill((skill) => compactInputSchema(jsonSchemaOf(skill.input, "input")));

/**
 * The revision whose Tool has no `title` (2025-03-26): its clients show `annotations.title`. Later
 * revisions show `title` first (BaseMetadata: title, then annotations.title, then name), so their
 * lists leave the copy out.
 */
const TITLE_IN_ANNOTATIONS_ONLY = "2025-03-26";

/**
 * The tool's hints (MCP ToolAnnotations). destructiveHint and idempotentHint are "meaningful only when
 * readOnlyHint == false" (the schema's words): a read tool says readOnlyHint and openWorldHint only.
 */
export const annotations = (skill: Skill, protocolVersion?: string) => ({
  ...(protocolVersion === TITLE_IN_ANNOTATIONS_ONLY ? { title: skill.title } : {}),
  readOnlyHint: skill.access === "read",
  ...(skill.access === "write"
    ? { destructiveHint: Boolean(skill.destructive), idempotentHint: Boolean(skill.idempotent) }
    : {}),
  openWorldHint: Boolean(skill.openWorld),
});

/** Whether the skill names its structuredContent's schema (test/mcp/output-schemas.test.ts requires it of every skill). */
export const declaresOutput = (skill: Skill) => Boolean(skill.output);

/** The zod schema of the skill's structuredContent; any JSON object for a skill that declares none yet. */
export const outputSchema = (skill: Skill): z.ZodType => skill.output ?? z.record(z.string(), z.unknown());

/** The tool's outputSchema (its structuredContent), compacted for a model's context (src/lib/compact-schema.ts). */
export const outputJsonSchema = perSkill((skill) => compactOutputSchema(jsonSchemaOf(outputSchema(skill), "output")));

/** The server's icon (serverInfo.icons, 2025-11-25+; clients show it next to the server's tools). */
export const icons = (base: string) => [{ src: `${base}/mcp/icon.svg`, mimeType: "image/svg+xml", sizes: ["any"] }];

/**
 * The tools/list entry. No per-tool `icons`: every tool's would be the server's own (serverInfo.icons),
 * the same 89 bytes in every entry of a list each assistant pays for in its context (docs/mcp.md,
 * "What tools/list costs").
 */
export const toolDefinition = (skill: Skill, protocolVersion?: string) => ({
  name: skill.name,
  title: skill.title,
  description: describeUntrusted(skill.description, skill.untrusted),
  inputSchema: inputJsonSchema(skill),
  outputSchema: outputJsonSchema(skill),
  annotations: annotations(skill, protocolVersion),
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
