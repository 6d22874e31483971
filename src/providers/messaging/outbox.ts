import type { Db } from "../../db/client";
import { outboxMessages } from "../../db/schema";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { MessageProvider, OutgoingMessage } from "./types";

/** Stores the message in D1 and never sends it: the default with no provider credentials. */
export class OutboxProvider implements MessageProvider {
  readonly name = "outbox";
  constructor(private readonly db: Db) {}

  async send(m: OutgoingMessage) {
    const id = `outbox_${newId()}`;
    await this.db.insert(outboxMessages).values({
      id,
      tenantId: m.tenantId,
      channel: m.channel,
      to: m.to,
      subject: m.subject ?? null,
      html: m.html ?? null,
      text: m.text ?? null,
      headers: m.headers ?? {},
      solicitationId: m.solicitationId ?? null,
      createdAt: nowIso(),
    });
    return { provider: this.name, providerMessageId: id };
  }
}
