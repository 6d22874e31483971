import { z } from "@hono/zod-openapi";
import { ApiError, validationError } from "../../lib/errors";
import { agentInputOf, checkedInput, fromAgentInput, type Operation } from "../../lib/operation";
import {
  funnelAnalyticsOperation,
  responseAnalyticsOperation,
  reviewAnalyticsOperation,
} from "../analytics/operations";
import { getBrand, listBrands } from "../brands/service";
import { getComplianceSettingsOperation } from "../compliance/operations";
import {
  experimentResultsOperation,
  getExperimentOperation,
  listExperimentsOperation,
} from "../experiments/operations";
import { getLocationOperation } from "../locations/operations";
import type { SessionIdentity } from "../mcp/identity";
import { operationOf } from "../mcp/skills/operation";
import { allSkills, findSkill, inputJsonSchema, type SkillContext } from "../mcp/skills/registry";
import { describeUntrusted, forModel } from "../mcp/skills/untrusted";
import { READ_SCOPES, type Scope } from "../oauth/scopes";
import { listOverdueResponsesOperation } from "../reviews/operations";
import { listReviews } from "../reviews/service";
import { getTemplateOperation } from "../templates/operations";
import { BUILTIN_TOKENS } from "../templates/tokens";
import { customTokenKeys } from "../templates/variables.service";
import { reviewContext } from "./review-context";
import { sendTiming } from "./send-timing";
import { type AgentContext, rangeOf } from "./types";

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

/** A read-only tool an agent may call: the same services as REST and MCP, always on the caller's tenant. */
export interface AgentTool {
  name: string;
  description: string;
  input: ObjectSchema;
  /**
   * Any one of these admits the call (required: a tool without scopes cannot be declared). They match
   * the REST routes of the same data (src/modules/identity/scopes.ts), so an agent reads no more than
   * its caller could read directly.
   */
  scopes: Scope[];
  /** paths in the result that hold outsider text: the model gets them marked (mcp/skills/untrusted.ts) */
  untrusted?: string[];
  // biome-ignore lint/suspicious/noExplicitAny: each tool's input is parsed by its own zod schema before the call
  handler(ctx: AgentContext, input: any): Promise<unknown>;
}

/** What a signed-in user may read through an agent: every read scope (the role decides writes, not reads). */
export const USER_AGENT_SCOPES: readonly Scope[] = READ_SCOPES;
/** The service's own agent runs (reply drafting on a review event) read like a signed-in user. */
export const SYSTEM_AGENT_SCOPES: readonly Scope[] = READ_SCOPES;

/** The scopes an agent run carries for a REST caller: an API key's own, a user's reads. */
export const callerScopes = (p: { kind: "user" } | { kind: "api_key"; scopes: string[] }): readonly string[] =>
  p.kind === "api_key" ? p.scopes : USER_AGENT_SCOPES;

const Day = z.iso.date();
const Range = { dateFrom: Day.optional().describe("first UTC day"), dateTo: Day.optional().describe("last UTC day") };
const Id = z.string().min(1).max(64);

/**
 * The agent door of an operation that is no MCP tool (src/lib/operation.ts): the REST input as JSON
 * fields with the door's defaults, the operation's description, the door's scopes, the same handler.
 */
export function toolOf(op: Operation): AgentTool {
  if (!op.agent) throw new Error(`${op.name} has no agent door`);
  const tool: AgentTool = {
    name: op.name,
    description: op.description ? `${op.summary}. ${op.description}` : op.summary,
    input: agentInputOf(op),
    scopes: [...op.agent.scopes] as Scope[],
    untrusted: op.untrusted,
    handler: (ctx, i) => op.handler(ctx, checkedInput(op, fromAgentInput(op, i)) as never),
  };
  origins.set(tool, op);
  return tool;
}

/** Which operation each derived tool came from (test/mcp/input-parity.test.ts checks the twins by identity). */
const origins = new WeakMap<AgentTool, Operation>();

/** The operation an agent tool was derived from: its own (toolOf) or its MCP tool's (skills/operation.ts). */
export function toolOperation(name: string): Operation | undefined {
  const own = EXTRA_TOOLS.find((t) => t.name === name);
  if (own) return origins.get(own);
  const s = isReadSkill(name) ? findSkill(name) : undefined;
  return s ? operationOf(s) : undefined;
}

/** Reads that are not MCP skills (analytics views, experiments, templates, compliance settings). */
const EXTRA_TOOLS: AgentTool[] = [
  // reads defined once as operations (src/lib/operation.ts): input, output and handler are the REST route's
  ...[
    funnelAnalyticsOperation,
    reviewAnalyticsOperation,
    responseAnalyticsOperation,
    getExperimentOperation,
    experimentResultsOperation,
    getTemplateOperation,
    getLocationOperation,
    listExperimentsOperation,
    listOverdueResponsesOperation,
    getComplianceSettingsOperation,
  ].map(toolOf),
  {
    name: "analytics.send-timing",
    description:
      "Conversion of sent review requests by local hour of day and weekday of sending, and the days from send to conversion.",
    input: z.object({ ...Range, locationId: Id.optional(), brandId: Id.optional(), campaignId: Id.optional() }),
    scopes: ["read:campaigns"],
    handler: (ctx, i) =>
      sendTiming(ctx, { range: rangeOf(i), locationId: i.locationId, brandId: i.brandId, campaignId: i.campaignId }),
  },
  {
    name: "reviews.search",
    description:
      "Reviews published in a window (newest first, up to 500), with rating, text, language, sentiment and topics.",
    input: z.object({
      ...Range,
      locationId: Id.optional(),
      ratingMax: z.number().min(1).max(5).optional(),
      limit: z.number().int().min(1).max(500).default(200),
    }),
    scopes: ["read:reviews"],
    untrusted: ["data[].text", "data[].authorName"],
    handler: async (ctx, i) => {
      const range = rangeOf(i);
      const data = [];
      let cursor: string | undefined;
      do {
        const page = await listReviews(ctx, {
          locationId: i.locationId,
          ratingMax: i.ratingMax,
          dateFrom: range.from,
          dateTo: range.to,
          limit: Math.min(200, i.limit - data.length),
          cursor,
        });
        data.push(...page.data);
        cursor = page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? undefined) : undefined;
      } while (cursor && data.length < i.limit);
      return { range, data };
    },
  },

  {
    name: "template.tokens",
    description: "The {{tokens}} templates may use: the built-in ones and the tenant's location variables.",
    input: z.object({}),
    scopes: ["read:campaigns"],
    handler: async (ctx) => ({ builtin: [...BUILTIN_TOKENS], custom: await customTokenKeys(ctx) }),
  },

  {
    name: "brand.get",
    description: "A brand's name, voice and tone; without brandId the tenant's default (oldest) brand.",
    input: z.object({ brandId: Id.optional() }),
    scopes: ["read:locations"],
    handler: async (ctx, i) => {
      if (i.brandId) return getBrand(ctx, i.brandId);
      const page = await listBrands(ctx, { limit: 200 });
      const oldest = page.data[page.data.length - 1];
      if (!oldest) throw new ApiError("NOT_FOUND", "Brand not found");
      return oldest;
    },
  },
  {
    name: "review.get",
    description:
      "One review (rating, text, language, sentiment, topics) with its brand's name, voice and tone and the location's contact.",
    input: z.object({ reviewId: Id }),
    scopes: ["read:reviews"],
    untrusted: ["review.text", "review.authorName"],
    handler: (ctx, i) => reviewContext(ctx, i.reviewId),
  },
];

/** The names of the agents' own tools (not MCP read skills): test/mcp/input-parity.test.ts classifies each. */
export const ownToolNames = () => EXTRA_TOOLS.map((t) => t.name);

/** The MCP read skills double as agent tools, called with the caller's own scopes. */
const isReadSkill = (name: string) => {
  const s = findSkill(name);
  return Boolean(
    s &&
      s.access === "read" &&
      !s.agencyOnly &&
      !s.name.startsWith("agent.") &&
      Boolean(s.scopes?.length) &&
      s.scopes!.every((x) => x.startsWith("read:")),
  );
};

function skillContext(ctx: AgentContext): SkillContext {
  const a = ctx.actor;
  const caller: SessionIdentity = {
    credential: a.type === "api_key" ? "api_key" : "session_jwt",
    tenantId: ctx.tenantId,
    scopes: [...ctx.scopes],
    agencySession: false,
    ...(a.type === "api_key" ? { keyId: a.keyId } : a.type === "user" ? { userId: a.userId } : {}),
  };
  return { ...ctx, caller, access: ctx.access, agencyIds: [] };
}

function skillTool(name: string): AgentTool | undefined {
  if (!isReadSkill(name)) return undefined;
  const skill = findSkill(name)!;
  // agency-aware skills get a tenantId input; agents never leave the caller's tenant
  const input = (
    "tenantId" in skill.input.shape ? skill.input.omit({ tenantId: true } as never) : skill.input
  ) as ObjectSchema;
  return {
    name,
    description: skill.description,
    input,
    scopes: skill.scopes!,
    untrusted: skill.untrusted,
    handler: (ctx, i) => skill.handler(skillContext(ctx), i),
  };
}

export function findTool(name: string): AgentTool | undefined {
  return EXTRA_TOOLS.find((t) => t.name === name) ?? skillTool(name);
}

/** Every read skill name (for the operator copilot, which may call any of them). */
export const readSkillNames = () =>
  allSkills()
    .filter((s) => isReadSkill(s.name))
    .map((s) => s.name);

/** The scopes that admit a tool (any one), or null for an unknown tool. */
export const toolScopes = (name: string): Scope[] | null => findTool(name)?.scopes ?? null;

/** The scopes the caller lacks for the tool (any one would do), or null when the caller may use it. */
export function missingScopes(granted: readonly string[], name: string): string[] | null {
  const admits = toolScopes(name);
  if (!admits) return null;
  return admits.some((s) => granted.includes(s)) ? null : [...admits];
}

/** A tool call the caller's scopes do not cover: nothing is read; the message names the scope. */
export class ToolSkipped extends ApiError {
  constructor(
    readonly tool: string,
    readonly missing: string[],
  ) {
    super(
      "FORBIDDEN",
      `${tool} was skipped: it needs the scope ${missing.join(" or ")}, which this caller was not granted`,
      { tool, missingScopes: missing },
    );
  }
}

/**
 * The one door every agent tool call goes through (the runtime's run.tool, the llm loop, the
 * assistant): the caller's scopes first, then the input, then the handler.
 */
export async function callTool(ctx: AgentContext, name: string, raw: Record<string, unknown>): Promise<unknown> {
  const tool = findTool(name);
  if (!tool) throw validationError([{ path: "tool", message: `Unknown tool ${name}` }]);
  const missing = missingScopes(ctx.scopes, name);
  if (missing) throw new ToolSkipped(name, missing);
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) {
    throw validationError(
      parsed.error.issues.map((i) => ({ path: `${name}.${i.path.join(".")}`, message: i.message })),
      `Invalid input for tool ${name}`,
    );
  }
  return tool.handler(ctx, parsed.data);
}

/** The tool as a Workers AI function definition. */
export function toolSpec(name: string) {
  const tool = findTool(name)!;
  const fake = { input: tool.input } as Parameters<typeof inputJsonSchema>[0];
  return { name, description: describeUntrusted(tool.description, tool.untrusted), parameters: inputJsonSchema(fake) };
}

/** A tool's result as the model's tool message: outsider text inside the untrusted envelope. */
export const toolMessageContent = (name: string, result: unknown) =>
  JSON.stringify(forModel(result, findTool(name)?.untrusted));
