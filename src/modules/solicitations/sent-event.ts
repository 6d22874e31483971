import type { Db } from "../../db/client";
import { domainEvents } from "../../db/schema";
import type { PendingEvent } from "../../lib/commit";
import type { EventEnvelope } from "../../lib/events";
import { nowIso } from "../../lib/time";

/**
 * The one `solicitation.sent` of a solicitation. A send can be recorded by the consumer, by a
 * delivery report that arrives first, or by the stale sweep's reconciliation after a crash: the id
 * is per solicitation and the insert does nothing when another path wrote it, so the event (and
 * what it starts: a drip sequence's next step, the tenant's webhooks) happens once. A copy handed to
 * the queue twice is deduplicated by its id in the events consumer.
 */
export const sentEventId = (solicitationId: string) => `evt_sent_${solicitationId}`;

export function sentEvent(
  db: Db,
  tenantId: string,
  data: Record<string, unknown> & { solicitationId: string },
): PendingEvent {
  const event: EventEnvelope = {
    id: sentEventId(data.solicitationId),
    type: "solicitation.sent",
    tenantId,
    occurredAt: nowIso(),
    data,
  };
  return {
    event,
    statement: db
      .insert(domainEvents)
      .values({ ...event, dispatchedAt: null })
      .onConflictDoNothing(),
  };
}
