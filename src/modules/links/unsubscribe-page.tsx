/** @jsxImportSource hono/jsx */
import { OneClickUnsubscribeForm, publicPage } from "./page";
import type { UnsubscribeView } from "./unsubscribe.service";

const CHANNEL_NOUN = { email: "emails", sms: "text messages", whatsapp: "WhatsApp messages" } as Record<string, string>;

export type UnsubscribeOutcome = "ask" | "unsubscribed" | "resubscribed";

/**
 * One page, three states: asking to confirm (GET while subscribed), unsubscribed (after POST, or
 * GET when already), resubscribed (after the resubscribe form). Plain forms post back to the same
 * URL: no script, no cookies. The resubscribe form sends _method=DELETE (an HTML form cannot DELETE).
 */
export function unsubscribePage(v: UnsubscribeView, outcome: UnsubscribeOutcome): string {
  const noun = CHANNEL_NOUN[v.channel] ?? "messages";
  const from = v.brand.name ? ` from ${v.brand.name}` : "";
  const to = v.address ? (
    <>
      {" at "}
      <strong>{v.address}</strong>
    </>
  ) : null;
  const asking = outcome === "ask" && v.subscribed;
  const body =
    outcome === "resubscribed" ? (
      <>
        <h1 id="title">You are subscribed again</h1>
        <p class="status" role="status">
          You will receive {noun}
          {from}
          {to} again.
        </p>
      </>
    ) : asking ? (
      <>
        <h1 id="title">
          Unsubscribe from {noun}
          {from}?
        </h1>
        <p>
          You will no longer receive review requests and follow-ups by {v.channel === "email" ? "email" : noun}
          {to}.
        </p>
        <OneClickUnsubscribeForm />
      </>
    ) : (
      <>
        <h1 id="title">You are unsubscribed</h1>
        <p class="status" role="status">
          You will no longer receive {noun}
          {from}
          {to}.
        </p>
        <p class="muted">Unsubscribed by mistake?</p>
        <form method="post">
          <input type="hidden" name="_method" value="DELETE" />
          <button type="submit" class="secondary" id="resubscribe">
            Resubscribe
          </button>
        </form>
      </>
    );
  return publicPage({
    title: asking ? "Unsubscribe" : "Your subscription",
    brand: v.brand.name ? v.brand : null,
    whiteLabel: v.whiteLabel,
    lang: v.locale ?? "en",
    children: body,
  });
}
