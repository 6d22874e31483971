import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { autoReplies } from "../../../db/schema";
import { auditStatement } from "../../../lib/audit";
import type { ServiceContext } from "../../../lib/context";
import { nowIso } from "../../../lib/time";
import type { ResponseAction } from "../response-states";
import { nextAutoReplyStatus } from "./states";

/** The actor name of everything the auto-reply machinery does (audit actor: system / auto-reply). */
export const AUTO_REPLY_ACTOR = "auto-reply";

export const isAutoReplyActor = (ctx: ServiceContext) =>
  ctx.actor.type === "system" && ctx.actor.name === AUTO_REPLY_ACTOR;

const INTERVENTIONS: ReadonlySet<ResponseAction> = new Set(["edit", "reject", "publish"]);

/**
 * A person's edit, rejection or own publish of a response that is scheduled to publish on its own
 * cancels the schedule, in the same batch as the person's move. Approval does not: it agrees.
 */
export async function interventionStatements(
  ctx: ServiceContext,
  responseId: string,
  action: ResponseAction,
): Promise<BatchItem<"sqlite">[]> {
  if (!INTERVENTIONS.has(action) || isAutoReplyActor(ctx)) return [];
  const row = await ctx.db
    .select()
    .from(autoReplies)
    .where(
      and(
        eq(autoReplies.responseId, responseId),
        eq(autoReplies.tenantId, ctx.tenantId),
        eq(autoReplies.status, "scheduled"),
      ),
    )
    .get();
  if (!row) return [];
  const after = {
    ...row,
    status: nextAutoReplyStatus(row.status, "cancel"),
    cancelReason: action,
    updatedAt: nowIso(),
  };
  return [
    ctx.db
      .update(autoReplies)
      .set({ status: after.status, cancelReason: after.cancelReason, updatedAt: after.updatedAt })
      .where(and(eq(autoReplies.id, row.id), eq(autoReplies.status, "scheduled"))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "auto_reply.cancelled",
      resourceType: "auto_reply",
      resourceId: row.id,
      previousState: row,
      nextState: after,
    }),
  ];
}
