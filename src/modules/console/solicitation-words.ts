import type { BlockedReason, ConsentChannel, SolicitationStatus } from "../../db/schema";

/*
 * How the console words review requests (solicitations) and the sending policy's refusals, for every page that
 * shows them (a contact's message history, the compliance view's refusals): the channels, the states and, per
 * `blockedReason` (solicitations/policy.ts, docs/sending.md "The policy"), why a request was not sent.
 */

export const CHANNEL_LABEL: Record<ConsentChannel, string> = {
  email: "Email",
  sms: "SMS",
  whatsapp: "WhatsApp",
  in_app: "In the app",
  kiosk_follow_up: "Kiosk follow-up",
};

export const channelName = (channel: string) => CHANNEL_LABEL[channel as ConsentChannel] ?? channel;

export const STATUS_LABEL: Record<SolicitationStatus, { text: string; tone: string }> = {
  PENDING: { text: "Waiting to go out", tone: "status warn" },
  SENT: { text: "Sent", tone: "status ok" },
  DELIVERED: { text: "Delivered", tone: "status ok" },
  FAILED: { text: "Failed", tone: "status bad" },
  BLOCKED: { text: "Not sent: refused by your rules", tone: "status bad" },
  BOUNCED: { text: "Bounced", tone: "status bad" },
};

/** Each refusal in a few words (the compliance view's count per reason). */
export const REASON_LABEL: Record<BlockedReason, string> = {
  TENANT_PAUSED: "Business paused",
  SUPPRESSED: "Contact suppressed",
  MISSING_ADDRESS: "No address for the channel",
  NO_CONSENT: "No consent",
  QUIET_HOURS: "Quiet hours",
  FREQUENCY_CAP_DAILY: "Daily limit reached",
  FREQUENCY_CAP_WEEKLY: "Weekly limit reached",
};

/** Why the policy refused a request on `channel`, as a sentence. */
export function refusalSentence(reason: BlockedReason, channel: string): string {
  const on = channelName(channel);
  switch (reason) {
    case "TENANT_PAUSED":
      return "This business was paused, so nothing was sent.";
    case "SUPPRESSED":
      return "The contact is suppressed: they asked not to be contacted, or their data was erased.";
    case "MISSING_ADDRESS":
      return channel === "email" ? "The contact has no email address." : `The contact has no phone number for ${on}.`;
    case "NO_CONSENT":
      return `No consent for ${on}: they opted out, or ${on} needs a recorded opt-in and there was none.`;
    case "QUIET_HOURS":
      return "It was during quiet hours in the contact's time zone.";
    case "FREQUENCY_CAP_DAILY":
      return "The contact had already been asked as often as your daily limit allows.";
    case "FREQUENCY_CAP_WEEKLY":
      return "The contact had already been asked as often as your weekly limit allows.";
  }
}
