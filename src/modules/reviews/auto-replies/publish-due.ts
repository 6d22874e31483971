import { and, asc, eq, inArray, lt, lte } from "drizzle-orm";
import type { ShardDb } from "../../../db/client";
import { autoReplies, tenants } from "../../../db/schema";
import type { Env } from "../../../env";
import { auditStatement } from "../../../lib/audit";
import { commit } from "../../../lib/commit";
import { ApiError } from "../../../lib/errors";
import { log } from "../../../lib/log";
import { systemContext } from "../../../lib/system-context";
import { addSeconds, nowIso } from "../../../lib/time";
import type { FetchFn } from "../../../providers/review-sites";
import { publishResponse } from "../publish";
import { approveResponse, findResponseRow } from "../responses.service";
import { AUTO_REPLY_ACTOR } from "./intervention";
import type { AutoReplyRow } from "./schemas";
import { type AutoReplyMove, nextAutoReplyStatus } from "./states";

export const DUE_PER_RUN = 50;
/** A site that refuses (5xx, rate limit) gets this many tries, RETRY_MINUTES x attempt apart. */
export const MAX_PUBLISH_ATTEMPTS = 3;
export const RETRY_MINUTES = 15;
/** A drafting or publishing claim this old was left by an isolate that died mid-way. */
const STALE_CLAIM_MS = 15 * 60_000;

type Deps = { fetch: FetchFn };
const defaultDeps: Deps = { fetch: (...a) => fetch(...a) };

/** The response's state when a person acted first -> the action that cancelled the schedule. */
const INTERVENTION_BY_STATUS: Record<string, string> = { draft: "edit", rejected: "reject", published: "publish" };

async function settle(env: Env, row: AutoReplyRow, move: AutoReplyMove, changes: Partial<AutoReplyRow>) {
  const ctx = await systemContext(env, row.tenantId, AUTO_REPLY_ACTOR);
  const after: AutoReplyRow = {
    ...row,
    ...changes,
    status: nextAutoReplyStatus(row.status, move),
    updatedAt: nowIso(),
  };
  const { id, tenantId, createdAt, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(autoReplies)
      .set(set)
      .where(and(eq(autoReplies.id, id), eq(autoReplies.status, row.status))),
    auditStatement(ctx, {
      tenantId,
      action: `auto_reply.${move === "withdraw" ? "cancelled" : after.status}`,
      resourceType: "auto_reply",
      resourceId: id,
      previousState: row,
      nextState: after,
    }),
  ]);
  return after;
}

/** One due auto reply: lease it, approve the response as system/auto-reply if still untouched, publish it. */
async function publishOne(
  env: Env,
  db: ShardDb,
  due: AutoReplyRow,
  now: Date,
  deps: Deps,
): Promise<AutoReplyRow | null> {
  const leased = await db
    .update(autoReplies)
    .set({ status: nextAutoReplyStatus(due.status, "claim"), updatedAt: nowIso() })
    .where(and(eq(autoReplies.id, due.id), eq(autoReplies.status, "scheduled")))
    .returning()
    .get();
  if (!leased) return null; // another run has it, or a person cancelled it a moment ago
  const ctx = await systemContext(env, leased.tenantId, AUTO_REPLY_ACTOR);
  const response = await findResponseRow(ctx, leased.responseId!);
  const intervened = INTERVENTION_BY_STATUS[response.status];
  if (intervened) return settle(env, leased, "withdraw", { cancelReason: intervened });
  try {
    if (response.status === "submitted") await approveResponse(ctx, response.id);
    await publishResponse(ctx, response.id, deps);
    return settle(env, leased, "publish", { attempts: leased.attempts + 1, lastError: null });
  } catch (err) {
    const code = err instanceof ApiError ? err.code : "INTERNAL";
    // a person rejected it between our read and our approval
    if (code === "INVALID_TRANSITION") return settle(env, leased, "withdraw", { cancelReason: "reject" });
    const attempts = leased.attempts + 1;
    const lastError = `${code}: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
    // RATE_LIMITED: our limiter held the reply back (Google quota); it goes out on a later try
    if (
      (code === "UPSTREAM_ERROR" || code === "RATE_LIMITED" || code === "INTERNAL") &&
      attempts < MAX_PUBLISH_ATTEMPTS
    ) {
      return settle(env, leased, "retry", {
        attempts,
        lastError,
        publishAt: addSeconds(now, RETRY_MINUTES * 60 * attempts).toISOString(),
      });
    }
    // the response stays approved: a person can still publish it or reply by hand
    return settle(env, leased, "fail", { attempts, lastError });
  }
}

/**
 * Claims left behind by an isolate that died mid-way (drafting, publishing) are marked failed, so
 * they do not look in progress forever; the response's own status tells how far it got.
 */
async function failStaleClaims(env: Env, db: ShardDb) {
  // claims are stamped with the wall clock, so their age is measured with it too
  const now = new Date();
  const stale = await db
    .select()
    .from(autoReplies)
    .where(
      and(
        inArray(autoReplies.status, ["drafting", "publishing"]),
        lt(autoReplies.updatedAt, new Date(now.getTime() - STALE_CLAIM_MS).toISOString()),
      ),
    )
    .limit(DUE_PER_RUN);
  for (const row of stale) await settle(env, row, "fail", { lastError: `interrupted while ${row.status}` });
  return stale.length;
}

/**
 * The auto-reply-publish sweep (every 5 minutes): publishes the auto replies whose delay has passed,
 * any tenant's, oldest due first, DUE_PER_RUN a run. Each is leased by a conditional update, so
 * overlapping runs never publish one twice.
 */
export async function publishDueAutoReplies(env: Env, db: ShardDb, now = new Date(), deps: Deps = defaultDeps) {
  // a paused tenant acts read-only: its scheduled replies wait until it is resumed
  const due = (
    await db
      .select({ row: autoReplies })
      .from(autoReplies)
      .innerJoin(tenants, and(eq(tenants.id, autoReplies.tenantId), eq(tenants.isActive, true)))
      .where(and(eq(autoReplies.status, "scheduled"), lte(autoReplies.publishAt, now.toISOString())))
      .orderBy(asc(autoReplies.publishAt))
      .limit(DUE_PER_RUN)
  ).map((r) => r.row);
  const outcomes: AutoReplyRow[] = [];
  for (const row of due) {
    try {
      const out = await publishOne(env, db, row, now, deps);
      if (out) outcomes.push(out);
    } catch (err) {
      log.error("auto reply publish failed", { autoReplyId: row.id, error: String(err) });
    }
  }
  const abandoned = await failStaleClaims(env, db);
  return { outcomes, abandoned };
}
