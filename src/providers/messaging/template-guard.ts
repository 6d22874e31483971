import type { Db } from "../../db/client";
import type { WhatsAppTemplateRow } from "../../db/schema";
import { findTemplateState, templateProblem } from "./template-store";
import { type MessageProvider, type OutgoingMessage, ProviderError } from "./types";

/**
 * A WhatsApp provider that checks the template's last known state before each send: a paused,
 * disabled or rejected template, or a MARKETING template to a US number, fails at once, not
 * retryable, without a (billed) call the provider would refuse. Unknown templates go through: the
 * provider's own answer decides (sync refusal or status webhook).
 */
export class TemplateGuardedProvider implements MessageProvider {
  readonly name: string;
  private readonly seen = new Map<string, WhatsAppTemplateRow | undefined>();

  constructor(
    private readonly inner: MessageProvider,
    private readonly store: { db: Db; scope: string },
    private readonly now: () => Date = () => new Date(),
  ) {
    this.name = inner.name;
  }

  async send(m: OutgoingMessage) {
    const t = m.whatsappTemplate;
    if (m.channel === "whatsapp" && t) {
      const key = `${t.name}\u0000${t.language}`;
      if (!this.seen.has(key))
        this.seen.set(
          key,
          await findTemplateState(this.store.db, this.store.scope, this.inner.name, t.name, t.language),
        );
      const problem = templateProblem(this.seen.get(key), m.to, this.now());
      if (problem) throw new ProviderError(problem.reason, false, undefined, problem.code);
    }
    return this.inner.send(m);
  }
}
