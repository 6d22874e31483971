import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { and, eq, inArray } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { backgroundJobs, type JobStatus, type JobType } from "../../db/schema";
import { tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import type { RequestMeta } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { resolveTenantAccess } from "../identity/access";
import { findTenantRef, loadUserPrincipal } from "../identity/service";
import type { JobRow } from "../jobs/schemas";
import { readJob } from "../jobs/service";
import { settleReviewSync } from "../reviews/sync-job";
import { callerSignIn, type SessionIdentity } from "./identity";
import { findSkill, skillAllowed } from "./skills/registry";
import { markedContent } from "./skills/untrusted";
import { EVERY_TOOL, inSelection, type ToolSelection } from "./toolsets";

/*
 * The Tasks extension of MCP 2026-07-28 (io.modelcontextprotocol/tasks, SEP-2663; the text:
 * github.com/modelcontextprotocol/ext-tasks specification/2026-07-28/tasks.md). A long job's tool,
 * called by a client that declares the extension in that request's capabilities, answers a
 * CreateTaskResult at once; the client polls tasks/get, which reads the job's own row (status,
 * done/total counters, result): the task IS the job, nothing is copied. tasks/cancel asks the job to
 * stop; tasks/update is acknowledged (no job asks the client for input). There is no tasks/list and
 * no tasks/result in this revision (the SDK answers -32601 for both).
 *
 * A task id is `{tenantId}.{jobId}`: the tenant tells which shard holds the job. It is a handle, not a
 * credential: the job is found only on the caller's own tenant, only when the credential that started
 * it asks (same API key, or same user and OAuth client), and only while that credential still holds
 * the tool's scope. Anything else is "not found" (-32602), like an id that never existed.
 */

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Who asks about a task: the request's caller (skills/run.ts CallEnv has these). */
export interface TaskCaller {
  env: Env;
  control: ControlDb;
  identity: SessionIdentity;
  meta: RequestMeta;
  defer: (work: Promise<unknown>) => void;
  /** the tools this request is served: a task of a tool outside it (e.g. at /mcp/readonly) is not found */
  selection?: ToolSelection;
}
/** The task's done/total, in the result's _meta (the extension defines no progress field; statusMessage says it in words). */
export const PROGRESS_META = "reputation-ops/progress";
/** A task stays readable at least this long after it was created (jobs rows are kept longer). */
export const TASK_TTL_MS = 7 * 24 * 3600 * 1000;
/** Suggested polling interval: a step of a job handles 100 rows, a review-site page takes a second or so. */
export const POLL_INTERVAL_MS = 2000;

/** Which tool each job kind answers for, and what its done/total count. */
const JOB_TASKS: Partial<Record<JobType, { tool: string; unit: string }>> = {
  contacts_import: { tool: "contact.import-csv", unit: "rows" },
  campaign_send_bulk: { tool: "campaign.send-bulk", unit: "rows" },
  review_sync: { tool: "review.sync", unit: "connections" },
  tenant_export: { tool: "tenant.export", unit: "rows" },
};

/** The credential a task belongs to: an API key, or a user through one OAuth client or a session. */
export const taskOwner = (i: SessionIdentity) =>
  i.credential === "api_key" ? `api_key:${i.keyId}` : `${i.credential}:${i.userId}:${i.clientId ?? ""}`;

export const taskIdOf = (job: Pick<JobRow, "tenantId" | "id">) => `${job.tenantId}.${job.id}`;

/** Whether this request's envelope declares the extension (capabilities are per request on 2026-07-28). */
export const declaresTasks = (envelope: unknown) => {
  const caps = (envelope as Record<string, { extensions?: Record<string, unknown> }> | undefined)?.[
    "io.modelcontextprotocol/clientCapabilities"
  ];
  return Boolean(caps?.extensions?.[TASKS_EXTENSION]);
};

/** tasks/get, tasks/update and tasks/cancel from a request that did not declare the extension: -32021. */
export function requireTasks(envelope: unknown) {
  if (!declaresTasks(envelope))
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      "Missing required client capability: the io.modelcontextprotocol/tasks extension",
    );
}

const notFound = () => new ProtocolError(ProtocolErrorCode.InvalidParams, "Failed to retrieve task: Task not found");

const STATUS: Record<JobStatus, "working" | "completed" | "failed" | "cancelled"> = {
  queued: "working",
  running: "working",
  succeeded: "completed",
  // a job's own refusal is the tool's error (completed, isError); only an internal fault is a failed task
  failed: "completed",
  cancelled: "cancelled",
};
const INTERNAL = "Internal error";

/** The Task fields of a job (SEP-2663 `Task`), with its progress. */
function taskOf(job: JobRow) {
  const unit = JOB_TASKS[job.type]?.unit ?? "items";
  const done = Number(job.counts.done ?? 0);
  const total = Number(job.counts.total ?? 0);
  const status = job.status === "failed" && job.error === INTERNAL ? "failed" : STATUS[job.status];
  return {
    taskId: taskIdOf(job),
    status,
    statusMessage:
      status === "working"
        ? `${done} of ${total} ${unit}`
        : status === "cancelled"
          ? `Cancelled after ${done} of ${total} ${unit}`
          : job.error
            ? job.error
            : `Done: ${done} of ${total} ${unit}`,
    createdAt: job.createdAt,
    lastUpdatedAt: job.updatedAt,
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: POLL_INTERVAL_MS,
    _meta: { [PROGRESS_META]: { done, total, unit } },
  };
}

/** The answer to the tools/call that started the job (durable: the job row is committed). */
export const createTaskResult = (job: JobRow) => ({ resultType: "task", ...taskOf(job) });

/** tasks/get's DetailedTask: the tool's result inlined once the job is done, the error of a failed one. */
function detailedTask(job: JobRow) {
  const task = taskOf(job);
  if (task.status === "failed") return { ...task, error: { code: ProtocolErrorCode.InternalError, message: INTERNAL } };
  if (task.status !== "completed") return task;
  const skill = findSkill(JOB_TASKS[job.type]!.tool);
  const result: CallToolResult =
    job.status === "succeeded"
      ? {
          structuredContent: job.result ?? {},
          content: markedContent(JSON.stringify(job.result ?? {}), skill?.untrusted),
        }
      : { isError: true, content: [{ type: "text", text: JSON.stringify({ error: job.error }) }] };
  return { ...task, result };
}

/** Whether the caller reaches the tenant a task id names: its own, or for an agency session one it may act for. */
async function reaches(call: TaskCaller, tenantId: string) {
  const { identity } = call;
  if (tenantId === identity.tenantId) return true;
  if (!identity.agencySession || !identity.userId) return false;
  const [principal, tenant] = await Promise.all([
    loadUserPrincipal(call.control, identity.userId, callerSignIn(identity)),
    findTenantRef(call.control, tenantId),
  ]);
  return Boolean(principal && tenant && resolveTenantAccess(principal, tenant));
}

/** The caller's job behind a task id, or -32602 for anything it may not see. */
async function findTask(call: TaskCaller, taskId: unknown) {
  const m = typeof taskId === "string" ? /^([a-z0-9]{1,64})\.(job_[a-z0-9]{10,64})$/.exec(taskId) : null;
  if (!m || !(await reaches(call, m[1]!))) throw notFound();
  const tenantId = m[1]!;
  let db: Awaited<ReturnType<typeof tenantDb>>;
  try {
    db = await tenantDb(call.env, tenantId);
  } catch {
    throw notFound();
  }
  const job = await readJob(db, tenantId, m[2]!);
  const kind = job ? JOB_TASKS[job.type] : undefined;
  const skill = kind ? findSkill(kind.tool) : undefined;
  if (
    !job ||
    !skill ||
    job.owner !== taskOwner(call.identity) ||
    !skillAllowed(skill, call.identity) ||
    !inSelection(skill, call.selection ?? EVERY_TOOL)
  )
    throw notFound();
  return { db, job };
}

/** tasks/get: the job as it stands (a review sync first reads its connections' outcomes). */
export async function getTask(call: TaskCaller, taskId: unknown) {
  const { db, job } = await findTask(call, taskId);
  const current =
    job.type === "review_sync"
      ? await settleReviewSync(
          {
            db,
            control: call.control,
            env: call.env,
            tenantId: job.tenantId,
            actor: { type: "system", name: "mcp-tasks" },
            meta: call.meta,
            defer: call.defer,
          },
          job,
        )
      : job;
  return detailedTask(current);
}

/** tasks/cancel: a queued or running job stops at its next step; a finished one is left as it is. Empty ack either way. */
export async function cancelTask(call: TaskCaller, taskId: unknown) {
  const { db, job } = await findTask(call, taskId);
  const now = nowIso();
  await db
    .update(backgroundJobs)
    .set({ status: "cancelled", finishedAt: now, updatedAt: now })
    .where(
      and(
        eq(backgroundJobs.id, job.id),
        eq(backgroundJobs.tenantId, job.tenantId),
        inArray(backgroundJobs.status, ["queued", "running"]),
      ),
    );
  return {};
}

/** tasks/update: no job asks its client for input, so every response is for a key that is not outstanding (ignored). */
export async function updateTask(call: TaskCaller, taskId: unknown) {
  await findTask(call, taskId);
  return {};
}
