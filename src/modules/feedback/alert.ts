import { and, eq } from "drizzle-orm";
import { contacts, locations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { log } from "../../lib/log";
import { sendTransactionalEmail } from "../../providers/messaging/transactional";
import { tenantMemberEmails } from "../users/membership";
import type { Landing } from "./landing";
import type { FeedbackRow } from "./schemas";

/** Who hears about a callback request: the location's own email, else the tenant's admins and managers. */
async function recipients(ctx: ServiceContext, locationId: string): Promise<string[]> {
  const loc = await ctx.db
    .select({ email: locations.email })
    .from(locations)
    .where(and(eq(locations.id, locationId), eq(locations.tenantId, ctx.tenantId)))
    .get();
  if (loc?.email) return [loc.email];
  // users and grants are control-plane rows (docs/scaling.md)
  return tenantMemberEmails(ctx.control, ctx.tenantId, ["tenant_admin", "manager"]);
}

const scoreLine = (f: FeedbackRow) =>
  f.rating != null
    ? `${f.rating} of 5 stars`
    : f.surveyType && f.score != null
      ? `${f.surveyType.toUpperCase()} score ${f.score}`
      : "no score";

/**
 * The alert for a callback request (after the submission committed; its inbox item is already
 * escalated with reason "callback requested"): one email with the customer's contact details.
 * Failures are logged; the escalated inbox item remains the durable record.
 */
export async function callbackAlert(ctx: ServiceContext, landing: Landing, f: FeedbackRow) {
  try {
    const to = await recipients(ctx, f.locationId);
    if (!to.length) return;
    const c = f.contactId
      ? await ctx.db
          .select({
            firstName: contacts.firstName,
            lastName: contacts.lastName,
            email: contacts.email,
            phone: contacts.phone,
          })
          .from(contacts)
          .where(and(eq(contacts.id, f.contactId), eq(contacts.tenantId, ctx.tenantId)))
          .get()
      : undefined;
    const who = [c?.firstName, c?.lastName].filter(Boolean).join(" ") || "A customer";
    const subject = `Callback requested: ${who} at ${landing.location.name}`;
    const text = [
      `${who} asked to be called back after leaving feedback for ${landing.location.name} (${scoreLine(f)}).`,
      "",
      `Phone: ${c?.phone ?? "not on file"}`,
      `Email: ${c?.email ?? "not on file"}`,
      f.text ? `Comment: "${f.text}"` : "Comment: (none)",
      f.followUpText ? `Follow-up: "${f.followUpText}"` : "",
      "",
      `The feedback is escalated in the inbox (feedback ${f.id}).`,
    ]
      .filter((l, i, all) => l !== "" || all[i - 1] !== "")
      .join("\n");
    for (const address of to)
      await sendTransactionalEmail(ctx.env, { tenantId: ctx.tenantId, to: address, subject, text });
  } catch (err) {
    log.error("callback alert email failed", { feedbackId: f.id, error: String(err) });
  }
}
