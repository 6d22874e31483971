import {
  deadLetterById,
  deleteDeadLetter,
  isWebhookDeliveryDeadLetter,
  listDeadLetters,
} from "../../background/dead-letter";
import { tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commitControl } from "../../lib/commit";
import type { PlatformContext } from "../../lib/context";
import { conflict, notFound } from "../../lib/errors";
import { redeliver } from "../outgoing-webhooks/deliveries.service";

/** GET /admin/dead-letters: newest first, with the total (src/background/dead-letter.ts). */
export { listDeadLetters };

/** Queues whose dead letters go back as they were: their consumers are idempotent under redelivery. */
const QUEUES: Record<string, (env: Env) => Queue | undefined> = {
  sends: (env) => env.SENDS,
  events: (env) => env.EVENTS,
  webhooks: (env) => env.WEBHOOKS,
  jobs: (env) => env.JOBS,
  clicks: (env) => env.CLICKS,
  "review-sync": (env) => env.REVIEW_SYNC,
};

interface FailedDelivery {
  tenantId: string;
  deliveryId: string;
  subscriptionId: string;
}

/**
 * POST /admin/dead-letters/{id}/replay. A queue message goes back onto its queue unchanged; a failed
 * webhook delivery becomes a redelivery (same webhook-id and body, fresh retry schedule; 409 while the
 * endpoint is disabled). The dead letter is then removed (audited); should the replay fail again it
 * comes back as a new dead letter.
 */
export async function replayDeadLetter(ctx: PlatformContext, id: string) {
  const row = await deadLetterById(ctx.control, id);
  if (!row) throw notFound("Dead letter");
  let replayedAs: { queue: string; deliveryId?: string };
  let tenantId: string | null = null;
  if (isWebhookDeliveryDeadLetter(row)) {
    const failed = row.body as FailedDelivery;
    tenantId = failed.tenantId;
    const again = await redeliver(
      { ...ctx, tenantId, db: await tenantDb(ctx.env, tenantId) },
      failed.subscriptionId,
      failed.deliveryId,
    );
    replayedAs = { queue: "webhooks", deliveryId: again.id };
  } else {
    const queue = QUEUES[row.queue]?.(ctx.env);
    if (!queue) throw conflict(`Messages of the ${row.queue} queue cannot be replayed`);
    await queue.send(row.body);
    replayedAs = { queue: row.queue };
  }
  // the dead letter is a control row; a tenant's replay is audited on its shard (docs/scaling.md)
  const auditCtx = { ...ctx, db: await auditDbFor(ctx.env, tenantId) };
  await commitControl(auditCtx, (control) => [deleteDeadLetter(control, row.id)], [
    auditStatement(auditCtx, {
      tenantId,
      action: "dead_letter.replayed",
      resourceType: "dead_letter",
      resourceId: row.id,
      previousState: { queue: row.queue, messageId: row.messageId, attempts: row.attempts, createdAt: row.createdAt },
      metadata: replayedAs,
    }),
  ]);
  return {
    id: row.id,
    queue: row.queue,
    messageId: row.messageId,
    replayedTo: replayedAs.queue,
    deliveryId: replayedAs.deliveryId ?? null,
  };
}
