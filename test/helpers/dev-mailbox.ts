import { env } from "cloudflare:workers";
import { and, desc, eq } from "drizzle-orm";
import { outboxMessages } from "../../src/db/schema";
import { allShards } from "../../src/db/shards";

type MailboxRow = typeof outboxMessages.$inferSelect;

/** Dev-mailbox emails (table outbox_messages) to this address on every shard (a tenant's mail is stored on its shard), newest first. */
async function emailsTo(to: string): Promise<MailboxRow[]> {
  const perShard = await Promise.all(
    allShards(env).map(({ db }) =>
      db
        .select()
        .from(outboxMessages)
        .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")))
        .orderBy(desc(outboxMessages.createdAt)),
    ),
  );
  return perShard.flat().sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** The newest dev-mailbox email to this address, waiting briefly for deferred (waitUntil) sends. */
export async function latestEmailTo(to: string, waitMs = 2_000) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = (await emailsTo(to))[0];
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

/** Ids of the emails already sent to this address: pass them to nextEmailTo. */
export async function emailIdsTo(to: string): Promise<Set<string>> {
  return new Set((await emailsTo(to)).map((r) => r.id));
}

/**
 * The first email to this address that is not in `seen` (and, given `subject`, has that subject),
 * waiting for it (deferred sends). Use it when the address got mail before: latestEmailTo would return
 * the older one while the new one is on its way.
 */
export async function nextEmailTo(to: string, seen: Set<string>, waitMs = 4_000, subject?: string) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const fresh = (await emailsTo(to)).find((r) => !seen.has(r.id) && (!subject || r.subject === subject));
    if (fresh) return fresh;
    if (Date.now() > deadline) throw new Error(`no new email to ${to} within ${waitMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
