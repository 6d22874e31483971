import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type InboxStatus, inboxItems, inboxNotes, tenants } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit, type PendingEvent } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { conflict, validationError } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { newId } from "../../lib/ids";
import { inJson } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { assertTenantMember } from "../users/membership";
import { MAX_BULK_ITEMS, MAX_TAGS } from "./schemas";
import { findInboxRow, type InboxItemType } from "./service";
import { assertMove } from "./states";

const SUCCESS = { success: true } as const;
const inTenant = (ctx: ServiceContext, id: string) => and(eq(inboxItems.id, id), eq(inboxItems.tenantId, ctx.tenantId));

/**
 * First statement of a change's batch: aborts the whole batch (D1 batches are transactions) unless
 * every item still has the status it was read with, so a concurrent move can never be overwritten
 * or half-applied. The abort is SQLite's "malformed JSON" error, raised only on the ELSE branch.
 */
function unchangedGuard(ctx: ServiceContext, seen: { id: string; status: InboxStatus }[]) {
  const pairs = JSON.stringify(seen.map((s) => [s.id, s.status]));
  const check = sql<number>`case when (
      select count(*) from ${inboxItems} i join json_each(${pairs}) p
        on i.id = json_extract(p.value, '$[0]') and i.status = json_extract(p.value, '$[1]')
      where i.tenant_id = ${ctx.tenantId}) = ${seen.length}
    then 1 else json('inbox item changed concurrently') end`;
  // selected from the tenant's own row, which always exists, so the check is evaluated exactly once
  return ctx.db.select({ ok: check }).from(tenants).where(eq(tenants.id, ctx.tenantId));
}

/** The messages of an error and its causes (drizzle wraps D1's error). */
function causes(e: unknown): string[] {
  const out: string[] = [];
  for (let err = e as { message?: string; cause?: unknown } | undefined; err; err = err.cause as typeof err)
    out.push(String(err.message));
  return out;
}

async function commitGuarded(ctx: ServiceContext, statements: BatchItem<"sqlite">[], events: PendingEvent[] = []) {
  try {
    await commit(ctx, statements, events);
  } catch (e) {
    if (causes(e).some((m) => m.includes("malformed JSON")))
      throw conflict("The inbox item changed at the same time; reload and retry");
    throw e;
  }
}

/** PATCH /v1/inbox/{id}: a status move from the state table. A move to `new` clears the assignee. */
export async function updateInboxItem(
  ctx: ServiceContext,
  id: string,
  input: { status?: InboxStatus; type?: InboxItemType },
) {
  const item = await findInboxRow(ctx, id, input.type);
  const to = input.status;
  if (!to || to === item.status) return SUCCESS;
  assertMove(item.status, to);
  if (to === "assigned" && !item.assignedToUserId) {
    throw validationError([{ path: "status", message: "The item has no assignee; use POST /v1/inbox/{id}/assign" }]);
  }
  const now = nowIso();
  const set = { status: to, updatedAt: now, ...(to === "new" ? { assignedToUserId: null } : {}) };
  await commitGuarded(ctx, [
    unchangedGuard(ctx, [item]),
    ctx.db.update(inboxItems).set(set).where(inTenant(ctx, item.id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "inbox.status_changed",
      resourceType: "inbox_item",
      resourceId: item.id,
      previousState: { status: item.status, assignedToUserId: item.assignedToUserId },
      nextState: { status: to, assignedToUserId: to === "new" ? null : item.assignedToUserId },
    }),
  ]);
  return SUCCESS;
}

type AssignableItem = Pick<
  typeof inboxItems.$inferSelect,
  "id" | "type" | "status" | "assignedToUserId" | "reviewId" | "feedbackId" | "locationId" | "updatedAt"
>;

/**
 * The one rule of an assignment, for REST and the automation's assign_inbox alike: a `new` item becomes
 * `assigned` (other statuses stay: an item in progress stays in progress); null unassigns, and an `assigned`
 * item goes back to `new`. One batch: the change (guarded against a concurrent change of the item), its audit
 * row and the inbox.assigned event; nothing when the assignee is already the one given (false). `extra` adds
 * the audit row's metadata and the event's cause fields (an automation rule's). The caller has checked that
 * the assignee is a user of the tenant.
 */
export async function applyAssignment(
  ctx: ServiceContext,
  item: AssignableItem,
  userId: string | null,
  extra: { metadata?: Record<string, unknown>; event?: Record<string, unknown> } = {},
): Promise<boolean> {
  if (userId === item.assignedToUserId) return false;
  const status: InboxStatus = userId
    ? item.status === "new"
      ? "assigned"
      : item.status
    : item.status === "assigned"
      ? "new"
      : item.status;
  await commitGuarded(
    ctx,
    [
      unchangedGuard(ctx, [item]),
      ctx.db
        .update(inboxItems)
        .set({ assignedToUserId: userId, status, updatedAt: nowIso() })
        .where(inTenant(ctx, item.id)),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: userId ? "inbox.assigned" : "inbox.unassigned",
        resourceType: "inbox_item",
        resourceId: item.id,
        previousState: { status: item.status, assignedToUserId: item.assignedToUserId },
        nextState: { status, assignedToUserId: userId },
        ...(extra.metadata ? { metadata: extra.metadata } : {}),
      }),
    ],
    userId
      ? [
          eventStatement(ctx, "inbox.assigned", {
            inboxItemId: item.id,
            type: item.type,
            reviewId: item.reviewId,
            feedbackId: item.feedbackId,
            locationId: item.locationId,
            assignedToUserId: userId,
            previousAssigneeId: item.assignedToUserId,
            ...extra.event,
          }),
        ]
      : [],
  );
  return true;
}

/**
 * POST /v1/inbox/{id}/assign: sets the assignee (applyAssignment's rule). Emits inbox.assigned.
 */
export async function assignInboxItem(
  ctx: ServiceContext,
  id: string,
  input: { userId: string | null; type?: InboxItemType },
) {
  const item = await findInboxRow(ctx, id, input.type);
  // an assignee is a user of this tenant (agency and platform admins act on it but are not its users)
  if (input.userId)
    await assertTenantMember(ctx, input.userId, { path: "userId", message: "Not a user of this tenant" });
  await applyAssignment(ctx, item, input.userId);
  return SUCCESS;
}

const author = (ctx: ServiceContext) =>
  ctx.actor.type === "user"
    ? { authorId: ctx.actor.userId, authorType: "user" as const }
    : ctx.actor.type === "api_key"
      ? { authorId: ctx.actor.keyId, authorType: "api_key" as const }
      : { authorId: null, authorType: "system" as const };

/** POST /v1/inbox/{id}/notes: an internal note with its author and time. */
export async function addInboxNote(ctx: ServiceContext, id: string, input: { note: string; type?: InboxItemType }) {
  const item = await findInboxRow(ctx, id, input.type);
  const note = {
    id: newId(),
    tenantId: ctx.tenantId,
    inboxItemId: item.id,
    ...author(ctx),
    note: input.note,
    createdAt: nowIso(),
  };
  await commit(ctx, [
    ctx.db.insert(inboxNotes).values(note),
    ctx.db.update(inboxItems).set({ updatedAt: note.createdAt }).where(inTenant(ctx, item.id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "inbox.note_added",
      resourceType: "inbox_item",
      resourceId: item.id,
      nextState: { noteId: note.id, note: note.note },
    }),
  ]);
  return { ...SUCCESS, noteId: note.id };
}

/**
 * An inbox item's tags as stored, however they are written (REST, MCP, automation's add_tags): trimmed,
 * the first spelling of each tag kept and later ones in any case dropped, at most MAX_TAGS. The one
 * definition (test/node/one-definition.test.ts).
 */
export const normalTags = (tags: readonly string[]): string[] => {
  const seen = new Set<string>();
  return tags
    .map((t) => t.trim())
    .filter((t) => t && !seen.has(t.toLowerCase()) && seen.add(t.toLowerCase()))
    .slice(0, MAX_TAGS);
};

/**
 * What giving an item `tags` writes: the normalised tags, and the update with its audit row (none when
 * they are the item's tags already). `metadata` goes on the audit row (e.g. the automation rule).
 */
export function tagWrites(
  ctx: ServiceContext,
  item: { id: string; tags: string[] },
  given: readonly string[],
  metadata?: Record<string, unknown>,
): { tags: string[]; writes: BatchItem<"sqlite">[] } {
  const tags = normalTags(given);
  if (JSON.stringify(tags) === JSON.stringify(item.tags)) return { tags, writes: [] };
  return {
    tags,
    writes: [
      ctx.db.update(inboxItems).set({ tags, updatedAt: nowIso() }).where(inTenant(ctx, item.id)),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "inbox.tagged",
        resourceType: "inbox_item",
        resourceId: item.id,
        previousState: { tags: item.tags },
        nextState: { tags },
        ...(metadata ? { metadata } : {}),
      }),
    ],
  };
}

/** POST /v1/inbox/{id}/tags: replaces the item's tags with the given ones (normalTags); [] clears. */
export async function setInboxTags(ctx: ServiceContext, id: string, input: { tags: string[]; type?: InboxItemType }) {
  const item = await findInboxRow(ctx, id, input.type);
  const { tags, writes } = tagWrites(ctx, item, input.tags);
  if (writes.length) await commit(ctx, writes);
  return { ...SUCCESS, tags };
}

const actorId = (ctx: ServiceContext) =>
  ctx.actor.type === "user" ? ctx.actor.userId : ctx.actor.type === "api_key" ? ctx.actor.keyId : null;

/**
 * POST /v1/inbox/{id}/escalate: marks the item escalated now, with the reason (default "Escalated
 * by hand") and who did it. The status does not change ("escalated" is a flag, not a status);
 * escalating again replaces the mark.
 */
export async function escalateInboxItem(
  ctx: ServiceContext,
  id: string,
  input: { reason?: string; type?: InboxItemType },
) {
  const item = await findInboxRow(ctx, id, input.type);
  const next = {
    escalatedAt: nowIso(),
    escalationReason: input.reason ?? "Escalated by hand",
    escalatedBy: actorId(ctx),
  };
  await commit(ctx, [
    ctx.db
      .update(inboxItems)
      .set({ ...next, updatedAt: next.escalatedAt })
      .where(inTenant(ctx, item.id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "inbox.escalated",
      resourceType: "inbox_item",
      resourceId: item.id,
      previousState: {
        escalatedAt: item.escalatedAt,
        escalationReason: item.escalationReason,
        escalatedBy: item.escalatedBy,
      },
      nextState: next,
    }),
  ]);
  return SUCCESS;
}

/**
 * POST /v1/inbox/bulk-status: all or nothing. Every id must be an item of this tenant (else 400
 * naming them) and every item must be allowed to move (else 409 for the first that is not);
 * items already in the status are left alone. One guarded batch, one audit row listing the moves.
 */
export async function bulkSetInboxStatus(ctx: ServiceContext, input: { itemIds: string[]; status: InboxStatus }) {
  const ids = [...new Set(input.itemIds)];
  if (ids.length > MAX_BULK_ITEMS)
    throw validationError([{ path: "itemIds", message: `At most ${MAX_BULK_ITEMS} items` }]);
  const rows = await ctx.db
    .select({ id: inboxItems.id, status: inboxItems.status, assignedToUserId: inboxItems.assignedToUserId })
    .from(inboxItems)
    .where(and(eq(inboxItems.tenantId, ctx.tenantId), inJson(inboxItems.id, ids)));
  const found = new Map(rows.map((r) => [r.id, r]));
  const missing = input.itemIds.flatMap((id, i) =>
    found.has(id) ? [] : [{ path: `itemIds.${i}`, message: `No inbox item ${id}` }],
  );
  if (missing.length) throw validationError(missing, "Unknown inbox items; nothing was changed");
  for (const id of ids) assertMove(found.get(id)!.status, input.status, id);
  if (input.status === "assigned") {
    const unassigned = input.itemIds.flatMap((id, i) =>
      found.get(id)!.assignedToUserId ? [] : [{ path: `itemIds.${i}`, message: "No assignee" }],
    );
    if (unassigned.length)
      throw validationError(unassigned, "Items without an assignee cannot be set to assigned; nothing was changed");
  }
  const moving = rows.filter((r) => r.status !== input.status);
  if (!moving.length) return SUCCESS;
  const now = nowIso();
  const set = { status: input.status, updatedAt: now, ...(input.status === "new" ? { assignedToUserId: null } : {}) };
  await commitGuarded(ctx, [
    unchangedGuard(ctx, moving),
    ctx.db
      .update(inboxItems)
      .set(set)
      .where(
        and(
          eq(inboxItems.tenantId, ctx.tenantId),
          inJson(
            inboxItems.id,
            moving.map((m) => m.id),
          ),
        ),
      ),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "inbox.bulk_status_changed",
      resourceType: "inbox_item",
      resourceId: "bulk",
      previousState: { items: moving.map((m) => ({ id: m.id, status: m.status })) },
      nextState: { status: input.status, itemIds: moving.map((m) => m.id) },
    }),
  ]);
  return SUCCESS;
}
