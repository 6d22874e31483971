import { and, eq } from "drizzle-orm";
import { solicitations } from "../../db/schema";
import { CRONS, registerSweep } from "../../jobs/cron";
import { registerEventHandler } from "../../jobs/events";
import { systemContext } from "../reviews/system-context";
import { enrollInSequence, stopEnrollments } from "./service";
import { runSequenceSweep } from "./sweep";

const solicitationIdOf = (data: Record<string, unknown>) =>
  typeof data.solicitationId === "string" ? data.solicitationId : null;

/**
 * Drip wiring through domain events: a sent step-0 solicitation enrolls its contact; a conversion
 * (review or feedback for a solicitation of the sequence) or a suppression/unsubscribe stops it.
 */
const HANDLED = new Set(["solicitation.sent", "solicitation.converted", "feedback.submitted", "contact.suppressed"]);

registerEventHandler({
  name: "sequences",
  async handle(event, env) {
    if (!HANDLED.has(event.type)) return;
    const ctx = systemContext(env, event.tenantId, "sequences");
    try {
      const solicitationId = solicitationIdOf(event.data);
      switch (event.type) {
        case "solicitation.sent": {
          if (!solicitationId) return;
          const s = await ctx.db
            .select()
            .from(solicitations)
            .where(and(eq(solicitations.id, solicitationId), eq(solicitations.tenantId, ctx.tenantId)))
            .get();
          if (s) await enrollInSequence(ctx, s);
          return;
        }
        case "solicitation.converted":
        case "feedback.submitted":
          if (solicitationId) await stopEnrollments(ctx, { solicitationId }, "converted");
          return;
        case "contact.suppressed":
          if (typeof event.data.contactId === "string") {
            await stopEnrollments(ctx, { contactId: event.data.contactId }, event.data.reason === "unsubscribe" ? "unsubscribed" : "suppressed");
          }
          return;
      }
    } finally {
      await ctx.settle();
    }
  },
});

registerSweep(CRONS.frequent, { name: "sequence-steps", run: (env, now) => runSequenceSweep(env, now).then(() => undefined) });
