import { and, eq, isNull, lte, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ShardDb } from "../../db/client";
import { domainEvents, inboxItems, locations, reviews, slaRules, type TenantRole } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { dispatchEvents, type EventEnvelope } from "../../lib/events";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import { addHours } from "../../lib/time";
import { sendTransactionalEmail } from "../../providers/messaging/transactional";
import { tenantMemberEmails } from "../users/membership";
import type { SlaRuleRow } from "./sla.schemas";
import { ruleFilter } from "./sla.service";

/** Items one rule escalates per sweep; the rest wait for the next run. */
const ITEMS_PER_RULE = 100;
/** Rules one sweep looks at; taken in random order so every rule gets its turn when there are more. */
const RULES_PER_SWEEP = 200;

interface Candidate {
  itemId: string;
  reviewId: string;
  locationId: string;
  locationName: string | null;
  siteType: string;
  rating: number | null;
  text: string | null;
  createdAt: string;
}

/**
 * Cron sweep: every review an active rule covers that is still unanswered escalateAfterHours after
 * it arrived gets its inbox item marked escalated (escalatedAt, escalationReason), one inbox.overdue
 * event and an email to the users holding the rule's escalateToRole. Idempotent: the mark is
 * conditional on escalatedAt being null, the event id is derived from the item, and emails go only
 * for items this run marked.
 */
export async function escalateOverdue(env: Env, db: ShardDb, now: Date): Promise<{ escalated: number }> {
  const rules = await db
    .select()
    .from(slaRules)
    .where(eq(slaRules.isActive, true))
    .orderBy(sql`random()`)
    .limit(RULES_PER_SWEEP);
  let escalated = 0;
  for (const rule of rules) escalated += await escalateRule(env, rule, now);
  return { escalated };
}

async function escalateRule(env: Env, rule: SlaRuleRow, now: Date): Promise<number> {
  const ctx = await systemContext(env, rule.tenantId, "sla-escalation");
  const cutoff = addHours(now, -rule.escalateAfterHours).toISOString();
  const candidates: Candidate[] = await ctx.db
    .select({
      itemId: inboxItems.id,
      reviewId: reviews.id,
      locationId: reviews.locationId,
      locationName: locations.name,
      siteType: reviews.siteType,
      rating: reviews.rating,
      text: reviews.text,
      createdAt: reviews.createdAt,
    })
    .from(reviews)
    .innerJoin(inboxItems, and(eq(inboxItems.reviewId, reviews.id), eq(inboxItems.tenantId, reviews.tenantId)))
    .leftJoin(locations, eq(locations.id, reviews.locationId))
    .where(
      and(
        eq(reviews.tenantId, rule.tenantId),
        eq(reviews.status, "new"),
        lte(reviews.createdAt, cutoff),
        isNull(inboxItems.escalatedAt),
        ruleFilter(rule.filter),
      ),
    )
    .limit(ITEMS_PER_RULE);
  if (!candidates.length) return 0;

  const at = now.toISOString();
  const reason = `SLA rule "${rule.name}": no published response within ${rule.escalateAfterHours} hours`;
  const claims = candidates.map((c) =>
    ctx.db
      .update(inboxItems)
      .set({ escalatedAt: at, escalationReason: reason, updatedAt: at })
      .where(and(eq(inboxItems.id, c.itemId), isNull(inboxItems.escalatedAt)))
      .returning({ id: inboxItems.id }),
  );
  const events: EventEnvelope[] = candidates.map((c) => ({
    id: `evt_overdue_${c.itemId}`,
    type: "inbox.overdue",
    tenantId: rule.tenantId,
    occurredAt: at,
    data: {
      inboxItemId: c.itemId,
      reviewId: c.reviewId,
      locationId: c.locationId,
      ruleId: rule.id,
      escalateToRole: rule.escalateToRole,
      reason,
    },
  }));
  const statements: BatchItem<"sqlite">[] = [
    ...claims,
    ...events.map((e) =>
      ctx.db
        .insert(domainEvents)
        .values({ ...e, dispatchedAt: null })
        .onConflictDoNothing(),
    ),
    ...candidates.map((c) =>
      auditStatement(ctx, {
        tenantId: rule.tenantId,
        action: "inbox.escalated",
        resourceType: "inbox_item",
        resourceId: c.itemId,
        nextState: { escalatedAt: at, escalationReason: reason },
        metadata: { ruleId: rule.id, reviewId: c.reviewId },
      }),
    ),
  ];
  const results = (await ctx.db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  const claimed = candidates.filter((_, i) => (results[i] as { id: string }[]).length > 0);
  await dispatchEvents(
    ctx.db,
    env,
    events.map((e) => e.id),
  ).catch((err) => log.warn("event dispatch deferred to sweep", { error: String(err) }));
  if (claimed.length && rule.escalateToRole) await emailEscalation(env, rule, claimed);
  return claimed.length;
}

async function emailEscalation(env: Env, rule: SlaRuleRow, items: Candidate[]) {
  // users and grants are control-plane rows (docs/scaling.md)
  const recipients = await tenantMemberEmails(controlDb(env), rule.tenantId, [rule.escalateToRole as TenantRole]);
  if (!recipients.length) return;
  const lines = items.map((i) => {
    const excerpt = i.text ? `"${i.text.length > 140 ? `${i.text.slice(0, 140)}...` : i.text}"` : "(no text)";
    return `- ${i.locationName ?? i.locationId} · ${i.siteType} · ${i.rating ?? "no"} stars · received ${i.createdAt} · review ${i.reviewId}\n  ${excerpt}`;
  });
  const subject = `${items.length} review${items.length === 1 ? "" : "s"} overdue for a response (${rule.name})`;
  const text =
    `These reviews have had no published response within ${rule.escalateAfterHours} hours, as the SLA rule "${rule.name}" requires:\n\n` +
    `${lines.join("\n")}\n\nDraft, approve and publish a response to clear them.`;
  for (const to of recipients) {
    await sendTransactionalEmail(env, { tenantId: rule.tenantId, to, subject, text });
  }
}
