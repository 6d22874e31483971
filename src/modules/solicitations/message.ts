import type { campaignTemplateBindings, MessageChannel } from "../../db/schema";
import type { OutgoingMessage, WhatsAppTemplate } from "../../providers/messaging/types";
import { renderTemplate, type TemplateContent } from "../templates/render";

/**
 * The built-in message of a channel, used when neither the solicitation, its experiment variant nor
 * a campaign binding names an approved template. Plain, honest wording; no gating.
 */
export const DEFAULT_TEMPLATES: Record<MessageChannel, TemplateContent> = {
  email: {
    subject: "How was your visit to {{locationName}}?",
    bodyHtml:
      "<p>Hi {{firstName}},</p><p>Thank you for choosing {{brandName}}. Would you take a minute to tell us how we did?</p>" +
      '<p><a href="{{reviewLink}}">Share your experience</a></p>',
    bodyText:
      "Hi {{firstName}},\n\nThank you for choosing {{brandName}}. Would you take a minute to tell us how we did?\n{{reviewLink}}",
  },
  sms: {
    subject: null,
    bodyHtml: null,
    bodyText: "Hi {{firstName}}, thanks for visiting {{locationName}}! How did we do? {{reviewLink}}",
  },
  whatsapp: {
    subject: null,
    bodyHtml: null,
    bodyText: "Hi {{firstName}}, thanks for visiting {{locationName}}! How did we do? {{reviewLink}}",
  },
};

type Binding = typeof campaignTemplateBindings.$inferSelect;

/**
 * The campaign binding a send uses: of the send's channel, active now, whose lineage has an approved
 * version; then the contact's locale first, the control binding first, the highest priority, the oldest.
 */
export function pickBinding(
  bindings: Binding[],
  o: { channel: MessageChannel; locale: string | null; now: string; usable: (templateId: string) => boolean },
): Binding | null {
  const candidates = bindings.filter(
    (b) =>
      b.channel === o.channel &&
      (!b.activeFrom || b.activeFrom <= o.now) &&
      (!b.activeTo || b.activeTo > o.now) &&
      o.usable(b.templateId),
  );
  const score = (b: Binding) => [b.locale === o.locale ? 1 : 0, b.isControl ? 1 : 0, b.priority] as const;
  candidates.sort((a, b) => {
    const [x, y] = [score(a), score(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return y[i]! - x[i]!;
    return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;
  });
  return candidates[0] ?? null;
}

export interface Links {
  reviewLink: string;
  feedbackLink: string;
  unsubscribeLink: string;
}

export const linksFor = (publicBaseUrl: string, shortLinkToken: string, unsubscribeToken: string): Links => {
  const base = publicBaseUrl.replace(/\/+$/, "");
  return {
    reviewLink: `${base}/v1/r/${shortLinkToken}?redirect=1`,
    feedbackLink: `${base}/f/${shortLinkToken}`,
    unsubscribeLink: `${base}/unsubscribe/${unsubscribeToken}`,
  };
};

export interface MessageInput {
  tenantId: string;
  solicitationId: string;
  channel: MessageChannel;
  to: string;
  template: TemplateContent;
  contact: { firstName: string | null; lastName: string | null };
  locationName: string;
  brandName: string;
  variables: Record<string, string>;
  links: Links;
  /** WhatsApp: {name, language, params: token names} from the solicitation's or the campaign's metadata */
  whatsappTemplate?: unknown;
}

function whatsappTemplateOf(spec: unknown, values: Record<string, string>): WhatsAppTemplate | null {
  if (!spec || typeof spec !== "object") return null;
  const { name, language, params } = spec as Record<string, unknown>;
  if (typeof name !== "string" || typeof language !== "string") return null;
  const tokens = Array.isArray(params) ? params.filter((p): p is string => typeof p === "string") : [];
  return { name, language, params: tokens.map((t) => values[t] ?? "") };
}

/**
 * The message handed to the provider: the template rendered with the contact, location, brand and
 * links; every email carries List-Unsubscribe (RFC 2369) and List-Unsubscribe-Post (RFC 8058
 * one-click), every SMS the opt-out text (added by renderTemplate).
 */
export function buildMessage(m: MessageInput): OutgoingMessage {
  const fullName = [m.contact.firstName, m.contact.lastName].filter(Boolean).join(" ");
  const values: Record<string, string> = {
    ...m.variables,
    firstName: m.contact.firstName ?? "",
    lastName: m.contact.lastName ?? "",
    fullName,
    locationName: m.locationName,
    brandName: m.brandName,
    ...m.links,
  };
  const rendered = renderTemplate(m.template, values, { channel: m.channel });
  const message: OutgoingMessage = {
    tenantId: m.tenantId,
    channel: m.channel,
    to: m.to,
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    solicitationId: m.solicitationId,
  };
  if (m.channel === "email") {
    message.headers = {
      "List-Unsubscribe": `<${m.links.unsubscribeLink}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    };
  }
  if (m.channel === "whatsapp") message.whatsappTemplate = whatsappTemplateOf(m.whatsappTemplate, values);
  return message;
}
