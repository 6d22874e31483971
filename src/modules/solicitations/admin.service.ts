import { and, count, desc, eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { deadLetters } from "../../db/schema";

/** Queue messages that exhausted their retries (all queues, or one), newest first, with the count. */
export async function listDeadLetters(db: ControlDb, o: { queue?: string; limit: number }) {
  const where = and(o.queue ? eq(deadLetters.queue, o.queue) : undefined);
  const [data, total] = await db.batch([
    db
      .select()
      .from(deadLetters)
      .where(where)
      .orderBy(desc(deadLetters.createdAt), desc(deadLetters.id))
      .limit(o.limit),
    db.select({ n: count() }).from(deadLetters).where(where),
  ]);
  return { data, total: total[0]?.n ?? 0 };
}
