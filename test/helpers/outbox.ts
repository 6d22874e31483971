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

/** Ids of the emails already sent to this address: pass them to nextEmailTo. */
export async function emailIdsTo(to: string): Promise<Set<string>> {
  const rows = await db().select({ id: outboxMessages.id }).from(outboxMessages).where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")));
  return new Set(rows.map((r) => r.id));
}

/**
 * The first email to this address that is not in `seen`, waiting for it (deferred sends). Use it when
 * the address got mail before: latestEmailTo would return the older one while the new one is on its way.
 */
export async function nextEmailTo(to: string, seen: Set<string>, waitMs = 4_000) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const rows = await db().select().from(outboxMessages).where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email"))).orderBy(desc(outboxMessages.createdAt));
    const fresh = rows.find((r) => !seen.has(r.id));
    if (fresh) return fresh;
    if (Date.now() > deadline) throw new Error(`no new email to ${to} within ${waitMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
