import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { ControlDb } from "../../../db/client";
import { shardDb, tenantDb, tenantShard } from "../../../db/shards";
import { assertTenantWritable, isTenantMoving } from "../../../db/tenant-fence";
import type { ElicitationOutcome } from "../../../durable/mcp-sessions";
import type { Env } from "../../../env";
import type { RequestMeta } from "../../../lib/context";
import { ApiError } from "../../../lib/errors";
import { addLogContext, log } from "../../../lib/log";
import {
  administeredAgencies,
  admitTenant,
  isPlatformAdmin,
  type Principal,
  requireTenantRole,
} from "../../identity/access";
import { findTenantRef, loadUserPrincipal } from "../../identity/service";
import { actorFor, auditToolCall, type ToolOutcome } from "../audit";
import { type McpLimits, STATELESS_SESSION_PREFIX } from "../config";
import {
  askInBrowser,
  awaitBrowserDecision,
  type BrowserConfirmation,
  confirmerText,
  spendBrowserConfirmation,
} from "../confirm-in-browser";
import { type ConfirmationCaller, issueConfirmation, redeemConfirmation } from "../confirmations";
import { callerSignIn, type SessionIdentity } from "../identity";
import { createTaskResult, taskOwner } from "../tasks";
import { EVERY_TOOL, inSelection, type ToolSelection, usableSelection } from "../toolsets";
import { findSkill, type Skill, type SkillContext, skillAllowed } from "./registry";
import { markedContent } from "./untrusted";

export interface CallEnv {
  env: Env;
  /** the control plane (the session's identity, the directory); a tool gets its tenant's shard as ctx.db */
  control: ControlDb;
  identity: SessionIdentity;
  sessionId: string;
  meta: RequestMeta;
  limits: McpLimits;
  defer: (work: Promise<unknown>) => void;
  /** the tools this request is served (endpoint, toolsets, single tools); every tool when absent */
  selection?: ToolSelection;
  /** the MCP revision the request speaks (tools/list words a tool's title for it: registry.ts toolDefinition) */
  protocolVersion?: string;
  /** the request declares the tasks extension (2026-07-28): a long job answers a task handle (mcp/tasks.ts) */
  tasks?: boolean;
}

/**
 * A JSON-RPC error the SDK sends as {code, message}. Not McpError: its message carries an
 * "MCP error <code>: " prefix onto the wire, which clients then print twice.
 */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How this call can get the user's confirmation for a skill that asks for one. `canAsk`: the client
 * can show the user a form (2026-07-28 with form elicitation declared); `returned`: the requestState and
 * the user's answer the client brought back from an earlier ask; `ask` builds the input_required
 * result that carries `state` and makes the client ask `message`. A client that can do none of this
 * is sent to the console's confirm page (confirm-in-browser.ts).
 */
export interface Confirmation {
  canAsk: boolean;
  returned?: { state: unknown; answer: "accepted" | "declined" };
  ask?(message: string, state: string): unknown;
  /**
   * 2025-xx sessions whose client declared form elicitation: asks the user in the middle of this call
   * (elicitation/create on the call's stream) and resolves with the answer (mcp/elicitation.ts).
   */
  elicit?(message: string): Promise<ElicitationOutcome>;
  /**
   * 2025-11-25 sessions whose client declared URL-mode elicitation only: sends the user to the confirm
   * page (elicitation/create in mode "url" on the call's stream) and resolves with the client's answer
   * (accept: the user agreed to open it); `completed` sends notifications/elicitation/complete.
   */
  elicitUrl?(message: string, url: string, elicitationId: string): Promise<ElicitationOutcome>;
  completed?(elicitationId: string): Promise<void>;
  /**
   * 2026-07-28 requests whose client declared URL-mode elicitation and not form: builds the input_required
   * result that sends the user to the confirm page (`url`) and carries `state` (the ask's id). The client
   * retries once the user is done there; the call runs only if a person confirmed it on the page.
   */
  askUrl?(message: string, url: string, state: string): unknown;
}

class ToolRefusal extends Error {
  constructor(
    readonly outcome: ToolOutcome,
    message: string,
    readonly details?: Record<string, unknown>,
    /** what the audit row says instead of `message`, when the message carries something only the caller may read */
    readonly audited?: string,
  ) {
    super(message);
  }
}

const confirmationCaller = (c: CallEnv, tenantId: string): ConfirmationCaller => ({
  env: c.env,
  identity: c.identity,
  session: c.sessionId.startsWith(STATELESS_SESSION_PREFIX) ? null : c.sessionId,
  tenantId,
});

/**
 * The confirmation gate of a skill with `confirm`, the same on both legs: returns the ask to send
 * (input_required) or null when the user confirmed this very call; throws a refusal otherwise.
 * Every ask is a single-use nonce in the tenant's Durable Object, bound to caller, session, tool
 * and arguments, valid 10 minutes (confirmations.ts): a confirmation cannot be replayed, moved to
 * another call or client, or made up. No code ever reaches the model: a client that cannot show the
 * user a form is sent to the console's confirm page (browserGate).
 */
async function confirmGate(
  skill: Skill,
  input: Record<string, unknown>,
  question: string,
  c: CallEnv,
  confirmation: Confirmation,
  tenantId: string,
): Promise<CallToolResult | null> {
  const caller = confirmationCaller(c, tenantId);
  if (confirmation.elicit) return elicitGate(skill, input, question, c, caller, confirmation.elicit);
  if (confirmation.canAsk && confirmation.ask) {
    const back = confirmation.returned;
    // an answer counts only with the state of an ask this server made for this very call, once
    if (back && (await redeemConfirmation(caller, skill.name, input, back.state))) {
      if (back.answer === "declined")
        throw new ToolRefusal("not_confirmed", "The user did not confirm; nothing was done");
      return null;
    }
    const issued = await issueConfirmation(caller, skill.name, input);
    return confirmation.ask(question, issued.code) as CallToolResult;
  }
  return browserGate(skill, input, question, c, caller, confirmation);
}

/**
 * The gate for a client that cannot show the user a form: the call runs only once a person who may
 * confirm it did so on the console's confirm page (confirm-in-browser.ts), and then once. Otherwise it
 * is refused with the page's link and what to do; nothing in the result confirms anything. A client
 * that declared URL-mode elicitation (2025-11-25) is sent the link with elicitation/create and the call
 * waits for the person's decision (at most the elicitation timeout) instead of asking for a retry.
 */
async function browserGate(
  skill: Skill,
  input: Record<string, unknown>,
  question: string,
  c: CallEnv,
  caller: ConfirmationCaller,
  confirmation: Confirmation,
): Promise<CallToolResult | null> {
  const taken = await askInBrowser(caller, skill, input, question);
  if (taken.confirmed) return null;
  const { ask } = taken;
  const message = `${question} Open the link, sign in and confirm it there (only ${confirmerText(ask.confirmer)} can).`;
  if (confirmation.askUrl) {
    // the retry of an ask the user declined or gave up in the client ends it; anything else is decided on
    // the page (confirmed: run above), so an unconfirmed retry is sent to the same page again
    const back = confirmation.returned;
    if (back?.state === ask.id && back.answer === "declined")
      throw new ToolRefusal("not_confirmed", "The user did not confirm; nothing was done");
    return confirmation.askUrl(message, ask.url, ask.id) as CallToolResult;
  }
  if (confirmation.elicitUrl) {
    const answer = await confirmation.elicitUrl(message, ask.url, ask.id);
    if (answer.action !== "accept") throw notConfirmed(answer, c);
    const decided = await awaitBrowserDecision(caller, ask.id, c.sessionId, c.limits.elicitationTimeoutMs);
    if (decided === "declined")
      throw new ToolRefusal("not_confirmed", "The user declined in the browser; nothing was done");
    if (decided === "ended") throw notConfirmed({ action: "ended" }, c);
    if (decided === "confirmed") {
      if (!(await spendBrowserConfirmation(caller, skill.name, input, ask.id)))
        throw new ToolRefusal("not_confirmed", "The confirmation expired; nothing was done. Call again to ask again");
      await confirmation.completed?.(ask.id);
      return null;
    }
    // no decision in time: the link stays good until it expires; a retry after confirming runs the call
  }
  throw browserRefusal(skill, question, ask);
}

/** The refusal a client without form elicitation gets: the confirm page's link and what to do, never a code. */
function browserRefusal(skill: Skill, question: string, ask: BrowserConfirmation): ToolRefusal {
  const who = confirmerText(ask.confirmer);
  return new ToolRefusal(
    "not_confirmed",
    `${skill.name} needs a confirmation in the browser; nothing was done. Ask the user to open ${ask.url} ` +
      `(only ${who} can confirm), check what this call will do ("${question}") and confirm it there. ` +
      `Once they say they confirmed, call ${skill.name} again with exactly the same arguments, before ${ask.expiresAt}. ` +
      "Nothing you send can confirm it for them.",
    { confirmation: { url: ask.url, expiresAt: ask.expiresAt, question, confirmedBy: who } },
    // the link names the ask; the tenant's audit log (read by its admins) says only that one was issued
    `${skill.name} needs the user's confirmation; a confirmation link was issued`,
  );
}

/** Why an answer to elicitation/create is not a go-ahead, as the tool result says it. */
function notConfirmed(outcome: ElicitationOutcome, c: CallEnv): ToolRefusal {
  const nothing = "; nothing was done";
  switch (outcome.action) {
    case "timeout":
      return new ToolRefusal(
        "timeout",
        `The user gave no answer within ${c.limits.elicitationTimeoutMs / 1000} s${nothing}. Call again to ask again`,
      );
    case "ended":
      return new ToolRefusal("not_confirmed", `The session ended before the user answered${nothing}`);
    case "error":
      return new ToolRefusal("not_confirmed", `The client could not ask the user (${outcome.message})${nothing}`);
    case "decline":
      return new ToolRefusal("not_confirmed", `The user declined${nothing}`);
    case "cancel":
      return new ToolRefusal("not_confirmed", `The user cancelled the question${nothing}`);
    default:
      return new ToolRefusal("not_confirmed", `The user did not tick confirm${nothing}`);
  }
}

/**
 * The confirmation gate on a session that can elicit: the same single-use confirmation as every
 * other ask (issued for this caller, session, tool and arguments, 10 minutes), but its code never
 * leaves the server: it is spent right after the user's answer, and only an accept with the box
 * ticked lets the call run.
 */
async function elicitGate(
  skill: Skill,
  input: Record<string, unknown>,
  question: string,
  c: CallEnv,
  caller: ConfirmationCaller,
  elicit: (message: string) => Promise<ElicitationOutcome>,
): Promise<null> {
  const issued = await issueConfirmation(caller, skill.name, input);
  const outcome = await elicit(question);
  const redeemed = await redeemConfirmation(caller, skill.name, input, issued.code);
  const accepted = outcome.action === "accept" && outcome.content?.confirm === true;
  if (accepted && redeemed) return null;
  throw accepted
    ? new ToolRefusal("not_confirmed", "The confirmation expired; nothing was done")
    : notConfirmed(outcome, c);
}

const toolError = (message: string, details?: Record<string, unknown>): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify({ error: message, ...details }) }],
});

/** The principal behind a call's credential: an API key as the REST authenticator resolves it, or the user as stored now. */
async function principalOf(c: CallEnv): Promise<Principal | null> {
  const { identity } = c;
  if (identity.credential === "api_key")
    return { kind: "api_key", keyId: identity.keyId!, tenantId: identity.tenantId, scopes: identity.scopes };
  return loadUserPrincipal(c.control, identity.userId!, callerSignIn(identity));
}

/**
 * The tenant a call acts for, the caller's access there and the agencies it may reach, through the one
 * access and role check every door passes (identity/access.ts `admitTenant`, `requireTenantRole`): an
 * API key like a user, so a paused tenant is read-only to both. tenantId input counts only in an agency
 * OAuth session and is re-checked against the caller's agencies on every call; user callers are
 * re-read (a removed role stops the next call). Runs before the input is read.
 */
async function resolveTenant(skill: Skill, input: Record<string, unknown>, c: CallEnv) {
  const { identity, control: db } = c;
  const principal = await principalOf(c);
  if (!principal) throw new ToolRefusal("forbidden", "The signed-in user is no longer active");
  if (skill.platformOnly && !isPlatformAdmin(principal))
    throw new ToolRefusal("forbidden", `${skill.name} needs the platform_admin role`);
  const agencyIds = identity.agencySession ? administeredAgencies(principal) : [];
  const asked =
    skill.agencyAware && identity.agencySession && typeof input.tenantId === "string" ? input.tenantId : null;
  const tenantId = asked ?? identity.tenantId;
  const tenant = await findTenantRef(db, tenantId);
  if (asked && !(tenant && agencyIds.includes(tenant.agencyId)))
    throw new ToolRefusal("forbidden", "Tenant not accessible");
  try {
    const access = admitTenant(principal, tenant);
    if (skill.minRole)
      requireTenantRole(
        access,
        skill.minRole,
        `${skill.name} needs the ${skill.minRole} role or higher in this tenant`,
      );
    return { tenantId, agencyIds, access };
  } catch (e) {
    if (e instanceof ApiError && e.code === "FORBIDDEN") throw new ToolRefusal("forbidden", e.message);
    throw e;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolRefusal("timeout", `The tool did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs one tools/call: scope, input, tenant, timeout and size checks, then the audit row. */
export async function callTool(
  name: string,
  args: Record<string, unknown> | undefined,
  c: CallEnv,
  confirmation: Confirmation = { canAsk: false },
): Promise<CallToolResult> {
  const started = Date.now();
  const input = args ?? {};
  const selection = usableSelection(c.selection ?? EVERY_TOOL);
  const found = findSkill(name);
  // a tool outside this request's selection does not exist here: the protocol's unknown-tool error
  const skill = found && inSelection(found, selection) ? found : undefined;
  let outcome: ToolOutcome = "success";
  let error: string | undefined;
  let tenantId = c.identity.tenantId;
  try {
    if (!skill) {
      outcome = "invalid_input";
      error = `Unknown tool: ${name}`;
      throw new JsonRpcError(ErrorCode.InvalidParams, error);
    }
    if (!skillAllowed(skill, c.identity)) {
      const needs = skill.platformOnly
        ? "a platform_admin's session"
        : skill.scopes
          ? `the scope ${skill.scopes.join(" or ")}`
          : "an agency session";
      throw new ToolRefusal("forbidden", `${name} needs ${needs}, which this session was not granted`);
    }
    // who may do this here first (tenant, pause, role), as REST's middleware does before its validators
    const resolved = await resolveTenant(skill, input, c);
    tenantId = resolved.tenantId;
    const parsed = skill.input.safeParse(input);
    if (!parsed.success) {
      outcome = "invalid_input";
      const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
      error = "Invalid input";
      return toolError("Invalid input", { issues });
    }
    // the request's lines from here on name the tool's tenant and its shard, as /v1 lines do (middleware/tenant.ts)
    const shard = (await tenantShard(c.env, tenantId)) ?? 0;
    addLogContext({ tenantId, shard });
    const question = skill.confirm?.(parsed.data);
    if (question) {
      const ask = await confirmGate(skill, parsed.data, question, c, confirmation, tenantId);
      if (ask) {
        outcome = "confirmation_requested";
        return ask;
      }
    }
    // a write tool of a tenant being moved is refused like a /v1 write (503 TENANT_MOVING); reads go on
    if (skill.access === "write") await assertTenantWritable(c.env, tenantId);
    const ctx: SkillContext = {
      // the tool acts on the tenant's shard; the identity checks above read the control plane
      db: shardDb(c.env, shard),
      control: c.control,
      env: c.env,
      tenantId,
      actor: actorFor(c.identity),
      meta: c.meta,
      defer: c.defer,
      caller: c.identity,
      access: resolved.access,
      agencyIds: resolved.agencyIds,
    };
    // a long job for a client that polls tasks: stored and queued, answered with its task handle at once
    if (skill.longJob && c.tasks) {
      const job = await skill.longJob.start(ctx, parsed.data, taskOwner(c.identity));
      return createTaskResult(job) as unknown as CallToolResult;
    }
    const result = await withTimeout(skill.handler(ctx, parsed.data), c.limits.toolTimeoutMs);
    const text = JSON.stringify(result);
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > c.limits.maxResultBytes) {
      throw new ToolRefusal(
        "too_large",
        `The result is ${(bytes / 1048576).toFixed(1)} MB, over the ${(c.limits.maxResultBytes / 1048576).toFixed(0)} MB limit; narrow the request (filters, a smaller limit)`,
      );
    }
    return { structuredContent: result as Record<string, unknown>, content: markedContent(text, skill.untrusted) };
  } catch (e) {
    if (e instanceof JsonRpcError) throw e;
    if (e instanceof ToolRefusal) {
      outcome = e.outcome;
      error = e.audited ?? e.message;
      return toolError(e.message, e.details);
    }
    outcome = "error";
    if (e instanceof ApiError && (e.status < 500 || isTenantMoving(e))) {
      error = e.message;
      return toolError(e.message, { code: e.code, ...(e.details ? { details: e.details } : {}) });
    }
    log.error("mcp tool failed", { tool: name, requestId: c.meta.requestId, error: String(e) });
    error = "Internal error";
    return toolError("Internal error", { requestId: c.meta.requestId });
  } finally {
    // the audit row is a tenant row: on the tenant's shard (an agency-level call without a tenant: the control database)
    await auditToolCall(tenantId ? await tenantDb(c.env, tenantId) : c.control, c.env, c.identity, c.meta, {
      tool: name,
      tenantId,
      sessionId: c.sessionId,
      input,
      outcome,
      error,
      durationMs: Date.now() - started,
    });
  }
}
