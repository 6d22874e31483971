import { and, desc, eq } from "drizzle-orm";
import { outboxMessages } from "../../src/db/schema";
import { db } from "./seed";

/** The newest outbox email to this address, waiting briefly for deferred (waitUntil) sends. */
export async function latestEmailTo(to: string, waitMs = 2_000) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = await db().select().from(outboxMessages).where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email"))).orderBy(desc(outboxMessages.createdAt)).get();
    if (row || Date.now() > deadline) return row ?? null;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The token an invite or reset email carries. */
export function tokenIn(text: string | null | undefined): string {
  const m = /(?:inviteToken|token): ([A-Za-z0-9_-]+)/.exec(text ?? "");
  if (!m) throw new Error(`no token in email: ${text}`);
  return m[1]!;
}
