import { desc, eq } from "drizzle-orm";
import { everyShard, mergeSorted, tenantAndControl } from "../../db/cross-shard";
import { outboxMessages } from "../../db/schema";
import type { Env } from "../../env";

/**
 * The newest outbox messages across shards (a tenant's sends are stored on its shard, platform
 * mail on the control database): every shard, or with tenantId that tenant's shard and shard 0, each
 * asked for `limit` rows, merged newest first.
 */
export async function listOutboxMessages(env: Env, q: { limit: number; tenantId?: string }) {
  const targets = q.tenantId === undefined ? everyShard(env) : await tenantAndControl(env, q.tenantId);
  const lists = await Promise.all(
    targets.map(({ db }) =>
      db
        .select()
        .from(outboxMessages)
        .where(q.tenantId === undefined ? undefined : eq(outboxMessages.tenantId, q.tenantId))
        .orderBy(desc(outboxMessages.createdAt), desc(outboxMessages.id))
        .limit(q.limit),
    ),
  );
  return mergeSorted(lists, (m) => [m.createdAt, m.id], "desc", q.limit);
}
