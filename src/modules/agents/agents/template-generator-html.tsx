/** @jsxImportSource hono/jsx */
import { renderHtml } from "../../../lib/html";

/** The HTML body of a drafted email template: the copy as text, the {{tokens}} left for the template renderer. */
export function emailTemplateHtml(o: { greeting: string; ask: string; cta: string; unsubscribe: string }): string {
  return renderHtml(
    <>
      <p>{o.greeting}</p>
      <p>{o.ask}</p>
      <p>
        <a href="{{reviewLink}}">{o.cta}</a>
      </p>
      <p style="font-size:12px;color:#666">
        <a href="{{unsubscribeLink}}">{o.unsubscribe}</a>
      </p>
    </>,
  );
}
