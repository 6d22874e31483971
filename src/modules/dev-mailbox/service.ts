import { desc, eq } from "drizzle-orm";
import { everyShard, mergeSorted, tenantTarget } from "../../db/cross-shard";
import { outboxMessages } from "../../db/schema";
import type { Env } from "../../env";

/**
 * The newest dev-mailbox messages (table outbox_messages) across shards (a tenant's mail is stored
 * on its shard, mail of no tenant on the control database): every shard, each asked for `limit` rows, merged newest first;
 * with tenantId that tenant's shard only.
 */
export async function listMailboxMessages(env: Env, q: { limit: number; tenantId?: string }) {
  const targets = q.tenantId === undefined ? everyShard(env) : await tenantTarget(env, q.tenantId);
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
