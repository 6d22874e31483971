import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { integrations, type ReplyAccess } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { SYSTEM_META } from "../../lib/context";
import { nowIso } from "../../lib/time";
import type { SiteAttention } from "../../providers/review-sites/types";
import type { IntegrationRow } from "./schemas";

const where = (row: Pick<IntegrationRow, "id" | "tenantId">) =>
  and(eq(integrations.id, row.id), eq(integrations.tenantId, row.tenantId));

/**
 * Marks a connection as needing a person (the site said no retry can fix it), audited
 * (integration.needs_attention, actor system) in the same batch. Only the first report writes: a
 * redelivered sync message finds the same code and changes nothing.
 */
export async function markNeedsAttention(db: Db, row: IntegrationRow, attention: SiteAttention, job: string) {
  if (row.attentionCode === attention.code) return;
  const now = nowIso();
  await db.batch([
    db
      .update(integrations)
      .set({
        attentionCode: attention.code,
        attentionMessage: attention.message.slice(0, 1000),
        attentionAt: now,
        updatedAt: now,
      })
      .where(where(row)),
    auditStatement(
      { db, actor: { type: "system", name: job }, meta: SYSTEM_META },
      {
        tenantId: row.tenantId,
        action: "integration.needs_attention",
        resourceType: "integration",
        resourceId: row.id,
        previousState: { attentionCode: row.attentionCode },
        nextState: { attentionCode: attention.code, attentionMessage: attention.message },
        metadata: { connectorType: row.connectorType },
      },
    ),
  ]);
}

/** A sync or reply that worked: whatever needed attention no longer does. */
export async function clearNeedsAttention(db: Db, row: IntegrationRow) {
  if (!row.attentionCode) return;
  await db
    .update(integrations)
    .set({ attentionCode: null, attentionMessage: null, attentionAt: null, updatedAt: nowIso() })
    .where(where(row));
}

/** Records what the site said about replying by API (Yelp's partner Respond to Reviews access). */
export async function recordReplyAccess(db: Db, row: IntegrationRow, access: ReplyAccess) {
  if (row.replyAccess === access) return;
  await db.update(integrations).set({ replyAccess: access, replyAccessCheckedAt: nowIso() }).where(where(row));
}
