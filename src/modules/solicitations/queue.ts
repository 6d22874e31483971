import type { Env } from "../../env";

/** What a SENDS message carries: the consumer reads everything else from D1. */
export interface SendMessage {
  solicitationId: string;
  /** routes the message to the tenant's shard (src/background/shards.ts); absent on messages sent before sharding */
  tenantId?: string;
}

const SEND_BATCH = 100; // Queues: sendBatch takes at most 100 messages

/** Queues PENDING solicitations for delivery, 100 per sendBatch call, all calls in flight at once. */
export async function enqueueSends(env: Env, sends: { id: string; tenantId: string }[]): Promise<void> {
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < sends.length; i += SEND_BATCH) {
    const body = sends
      .slice(i, i + SEND_BATCH)
      .map((s) => ({ body: { solicitationId: s.id, tenantId: s.tenantId } satisfies SendMessage }));
    calls.push(env.SENDS.sendBatch(body));
  }
  await Promise.all(calls);
}
