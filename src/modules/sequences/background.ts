import { and, eq } from "drizzle-orm";
import type { EventHandler } from "../../background/events";
import type { ShardSweep } from "../../background/shards";
import type { ShardDb } from "../../db/client";
import { sequenceEnrollments, sequenceSteps, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { inJson } from "../../lib/sql";
import { systemContext } from "../../lib/system-context";
import { enrollInSequence, stopEnrollments } from "./service";
import { runSequenceSweep } from "./sweep";
import type { SolicitationCreator } from "./types";

const solicitationIdOf = (data: Record<string, unknown>) =>
  typeof data.solicitationId === "string" ? data.solicitationId : null;

/**
 * Drip wiring through domain events: a sent step-0 solicitation enrolls its contact; a conversion
 * (review or feedback for a solicitation of the sequence) or a suppression/unsubscribe stops it.
 */
const HANDLED = new Set(["solicitation.sent", "solicitation.converted", "feedback.submitted", "contact.suppressed"]);

/**
 * One read per batch: a sent solicitation matters only if its campaign has steps (when the event names it); a conversion or
 * suppression only if its tenant has an active enrollment.
 */
async function concernsSequences(
  events: EventEnvelope[],
  _env: Env,
  db: ShardDb,
): Promise<(event: EventEnvelope) => boolean> {
  const ours = events.filter((e) => HANDLED.has(e.type));
  if (!ours.length) return () => false;
  const campaignIds = [
    ...new Set(ours.map((e) => e.data.campaignId).filter((id): id is string => typeof id === "string")),
  ];
  const tenants = [...new Set(ours.map((e) => e.tenantId))];
  const [stepped, enrolled] = await db.batch([
    db
      .selectDistinct({ tenantId: sequenceSteps.tenantId, campaignId: sequenceSteps.campaignId })
      .from(sequenceSteps)
      .where(inJson(sequenceSteps.campaignId, campaignIds)),
    db
      .selectDistinct({ tenantId: sequenceEnrollments.tenantId })
      .from(sequenceEnrollments)
      .where(and(inJson(sequenceEnrollments.tenantId, tenants), eq(sequenceEnrollments.status, "active"))),
  ]);
  const withSteps = new Set(stepped.map((r) => `${r.tenantId}|${r.campaignId}`));
  const withEnrollments = new Set(enrolled.map((r) => r.tenantId));
  return (event) =>
    HANDLED.has(event.type) &&
    (event.type !== "solicitation.sent"
      ? withEnrollments.has(event.tenantId)
      : // an emitter that leaves campaignId out: the handler reads the solicitation itself
        typeof event.data.campaignId !== "string" || withSteps.has(`${event.tenantId}|${event.data.campaignId}`));
}

export const sequencesHandler: EventHandler = {
  name: "sequences",
  select: concernsSequences,
  async handle(event, env) {
    if (!HANDLED.has(event.type)) return;
    const ctx = await systemContext(env, event.tenantId, "sequences");
    try {
      const solicitationId = solicitationIdOf(event.data);
      switch (event.type) {
        case "solicitation.sent": {
          if (!solicitationId) return;
          const s = await ctx.db
            .select()
            .from(solicitations)
            .where(and(eq(solicitations.id, solicitationId), eq(solicitations.tenantId, ctx.tenantId)))
            .get();
          if (s) await enrollInSequence(ctx, s);
          return;
        }
        case "solicitation.converted":
        case "feedback.submitted":
          if (solicitationId) await stopEnrollments(ctx, { solicitationId }, "converted");
          return;
        case "contact.suppressed":
          if (typeof event.data.contactId === "string") {
            await stopEnrollments(
              ctx,
              { contactId: event.data.contactId },
              event.data.reason === "unsubscribe" ? "unsubscribed" : "suppressed",
            );
          }
          return;
      }
    } finally {
      await ctx.settle();
    }
  },
};

/** The drip sweep, creating each due step's solicitation with `create` (the sending module's). */
export const sequenceStepsSweep = (create: SolicitationCreator): ShardSweep => ({
  name: "sequence-steps",
  run: (env, shard, now) => runSequenceSweep(env, shard, now, create).then(() => undefined),
});
