import type { Db } from "../../db/client";
import { outboxMessages } from "../../db/schema";
import { newId } from "../../lib/ids";
import { chunkRows } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import type { MessageProvider, OutgoingMessage, SendReceipt } from "./types";

/**
 * The dev mailbox: stores the message in D1 (table outbox_messages) and never sends it, the default with
 * no provider credentials. Its wire name stays "outbox" (decisions.md; stored in solicitations.provider).
 */
export class DevMailboxProvider implements MessageProvider {
  readonly name = "outbox";
  constructor(private readonly db: Db) {}

  async send(m: OutgoingMessage) {
    return (await this.sendMany([m]))[0]!;
  }

  /** A whole queue batch in one atomic D1 batch. */
  async sendMany(messages: OutgoingMessage[]): Promise<SendReceipt[]> {
    const createdAt = nowIso();
    const rows = messages.map((m) => ({
      id: `outbox_${newId()}`,
      tenantId: m.tenantId,
      channel: m.channel,
      to: m.to,
      subject: m.subject ?? null,
      html: m.html ?? null,
      text: m.text ?? null,
      headers: m.headers ?? {},
      solicitationId: m.solicitationId ?? null,
      createdAt,
    }));
    const inserts = chunkRows(outboxMessages, rows).map((chunk) => this.db.insert(outboxMessages).values(chunk));
    if (inserts.length) await this.db.batch(inserts as [(typeof inserts)[0], ...typeof inserts]);
    return rows.map((r) => ({ provider: this.name, providerMessageId: r.id }));
  }
}
