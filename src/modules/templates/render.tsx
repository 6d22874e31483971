/** @jsxImportSource hono/jsx */
import type { MessageChannel } from "../../db/schema";
import { renderHtml } from "../../lib/html";
import { type SmsSegmentInfo, smsSegments } from "./sms-segments";
import { extractTokens, replaceTokens } from "./tokens";

export const SMS_OPT_OUT_TEXT = "Reply STOP to opt out";

export interface TemplateContent {
  subject: string | null;
  bodyHtml: string | null;
  bodyText: string | null;
}

export interface RenderedMessage {
  subject: string | null;
  html: string | null;
  text: string | null;
  /** email only: true when the template had no {{unsubscribeLink}} and the link was appended */
  unsubscribeLinkAppended: boolean;
  /** sms only */
  sms: SmsSegmentInfo | null;
}

/**
 * A token's value as text inside the tenant's own HTML template: the one place values are escaped by
 * hand, because the template is HTML the tenant wrote, not markup we build (that is JSX:
 * test/node/html-by-construction.test.ts allows this function only here).
 */
const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const tokenValueAsHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);

/** An SMS body as sent: the opt-out line appended unless the body already says "Reply STOP". */
export const withSmsOptOut = (body: string) =>
  /reply\s+stop/i.test(body) ? body : body ? `${body}\n${SMS_OPT_OUT_TEXT}` : SMS_OPT_OUT_TEXT;

const hasUnsubscribeToken = (text: string | null) => extractTokens(text).includes("unsubscribeLink");

function appendHtmlFooter(html: string, link: string): string {
  const footer = renderHtml(
    <p style="font-size:12px;color:#666">
      If you no longer wish to receive these emails, <a href={link}>unsubscribe</a>.
    </p>,
  );
  const close = html.search(/<\/body>/i);
  return close === -1 ? html + footer : html.slice(0, close) + footer + html.slice(close);
}

/**
 * Renders a template with token values: values are HTML-escaped in bodyHtml, taken as is in the
 * text body, and stripped of line breaks in the subject (a header). A token without a value renders
 * empty. Email: every body part without {{unsubscribeLink}} gets the unsubscribe link appended.
 * SMS: the opt-out text is appended unless the body already says "Reply STOP", and the segment count
 * is reported for the final text.
 */
export function renderTemplate(
  template: TemplateContent,
  values: Record<string, string | null | undefined>,
  { channel }: { channel: MessageChannel },
): RenderedMessage {
  const raw = (name: string) => values[name] ?? "";
  const subject =
    template.subject === null ? null : replaceTokens(template.subject, (n) => raw(n).replace(/[\r\n]+/g, " "));
  let html = template.bodyHtml === null ? null : replaceTokens(template.bodyHtml, (n) => tokenValueAsHtml(raw(n)));
  let text = template.bodyText === null ? null : replaceTokens(template.bodyText, raw);
  let unsubscribeLinkAppended = false;
  let sms: SmsSegmentInfo | null = null;

  if (channel === "email") {
    const link = values.unsubscribeLink;
    if (!link) throw new Error("renderTemplate: an email needs an unsubscribeLink value");
    if (html !== null && !hasUnsubscribeToken(template.bodyHtml)) {
      html = appendHtmlFooter(html, link);
      unsubscribeLinkAppended = true;
    }
    if (text !== null && !hasUnsubscribeToken(template.bodyText)) {
      text = `${text}\n\nUnsubscribe: ${link}`;
      unsubscribeLinkAppended = true;
    }
  }
  if (channel === "sms") {
    text = withSmsOptOut(text ?? "");
    sms = smsSegments(text);
  }
  return { subject, html, text, unsubscribeLinkAppended, sms };
}
