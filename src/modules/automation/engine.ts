import { and, eq } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { type ActionOutcome, automationRules, automationRuns } from "../../db/schema";
import type { Env } from "../../env";
import { type EventPlace, eventPlace, eventReview, type TokenSource } from "../../lib/event-context";
import type { EventEnvelope } from "../../lib/events";
import { newId } from "../../lib/ids";
import { inJson } from "../../lib/sql";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import { isEventType } from "../events/catalogue";
import type { FetchFn } from "../outgoing-webhooks/transport";
import { runAction } from "./actions";
import { allMatch } from "./conditions";
import type { RuleRow } from "./schemas";

/** Events this many rule actions deep trigger no further rules. */
export const MAX_CHAIN_DEPTH = 3;

const chainOf = (data: Record<string, unknown>): string[] => {
  const chain = Array.isArray(data.automationChain)
    ? data.automationChain.filter((x): x is string => typeof x === "string")
    : [];
  if (typeof data.causedByRuleId === "string" && !chain.includes(data.causedByRuleId)) chain.push(data.causedByRuleId);
  return chain;
};

const inScope = (rule: RuleRow, place: EventPlace | null) =>
  (!rule.locationId || place?.locationId === rule.locationId) && (!rule.brandId || place?.brandId === rule.brandId);

/** Why a matching rule must not run for this event (loop protection), or null. */
function loopReason(rule: RuleRow, chain: string[], depth: number): string | null {
  if (chain.includes(rule.id)) return "loop protection: the event was caused by this rule's own action";
  if (depth >= MAX_CHAIN_DEPTH)
    return `loop protection: automation chain depth ${depth} reached the limit of ${MAX_CHAIN_DEPTH}`;
  return null;
}

/** EVENTS pre-filter: one read of the batch's tenants' active triggers; events no rule waits for are skipped. */
export async function triggeringEvents(
  events: EventEnvelope[],
  _env: Env,
  shard: ShardDb,
): Promise<(event: EventEnvelope) => boolean> {
  const tenants = [...new Set(events.filter((e) => isEventType(e.type)).map((e) => e.tenantId))];
  if (!tenants.length) return () => false;
  const triggers = await shard
    .selectDistinct({ tenantId: automationRules.tenantId, type: automationRules.triggerEventType })
    .from(automationRules)
    .where(and(inJson(automationRules.tenantId, tenants), eq(automationRules.isActive, true)));
  const armed = new Set(triggers.map((t) => `${t.tenantId}|${t.type}`));
  return (event) => armed.has(`${event.tenantId}|${event.type}`);
}

/**
 * EVENTS handler: runs every active rule of the event's tenant and type whose scope and conditions
 * match. Each (rule, event) is claimed once in automation_runs before its actions run, so a
 * redelivered event never repeats side effects (actions run at most once). Action failures are
 * recorded in the run, never thrown.
 */
export async function runAutomation(event: EventEnvelope, env: Env, o: { fetch?: FetchFn } = {}) {
  if (!isEventType(event.type)) return [];
  const pending: Promise<unknown>[] = [];
  const ctx = await systemContext(env, event.tenantId, "automation", pending);
  const rules = await ctx.db
    .select()
    .from(automationRules)
    .where(
      and(
        eq(automationRules.tenantId, event.tenantId),
        eq(automationRules.triggerEventType, event.type),
        eq(automationRules.isActive, true),
      ),
    );
  if (!rules.length) return [];
  const place = await eventPlace(ctx, event);
  let tokens: Promise<TokenSource> | undefined;
  const tokenSource = () => (tokens ??= eventReview(ctx, event).then((review) => ({ event, place, review })));
  const chain = chainOf(event.data);
  const depth = typeof event.data.automationDepth === "number" ? event.data.automationDepth : 0;

  const runs: { ruleId: string; outcome: string }[] = [];
  for (const rule of rules) {
    if (!inScope(rule, place) || !allMatch(rule.conditions, event.data)) continue;
    const skip = loopReason(rule, chain, depth);
    const now = nowIso();
    const runId = newId();
    const claimed = await ctx.db
      .insert(automationRuns)
      .values({
        id: runId,
        tenantId: event.tenantId,
        ruleId: rule.id,
        eventId: event.id,
        eventType: event.type,
        outcome: skip ? "skipped" : "running",
        actions: [],
        error: skip,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: automationRuns.id });
    if (!claimed.length) continue;
    if (skip) {
      runs.push({ ruleId: rule.id, outcome: "skipped" });
      continue;
    }
    const cause = { ruleId: rule.id, eventId: event.id, chain: [...chain, rule.id], depth: depth + 1 };
    const outcomes: ActionOutcome[] = [];
    for (const action of rule.actions) {
      try {
        const result = await runAction({ ctx, rule, event, place, cause, fetch: o.fetch, tokens: tokenSource }, action);
        outcomes.push({ type: action.type, outcome: "succeeded", result });
      } catch (err) {
        outcomes.push({
          type: action.type,
          outcome: "failed",
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    const failed = outcomes.filter((x) => x.outcome === "failed").length;
    const outcome = failed === 0 ? "succeeded" : failed === outcomes.length ? "failed" : "partial";
    await ctx.db
      .update(automationRuns)
      .set({
        outcome,
        actions: outcomes,
        error: failed ? `${failed} of ${outcomes.length} actions failed` : null,
        updatedAt: nowIso(),
      })
      .where(eq(automationRuns.id, runId));
    runs.push({ ruleId: rule.id, outcome });
  }
  await ctx.settle();
  return runs;
}
