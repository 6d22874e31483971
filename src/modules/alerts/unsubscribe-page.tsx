/** @jsxImportSource hono/jsx */
import { OneClickUnsubscribeForm, publicPage } from "../links/page";
import type { AlertUnsubscribeView } from "./unsubscribe.service";

const WHAT = { instant: "new-review alert emails", digest: "review digest emails" } as const;

/**
 * The alert unsubscribe page, in the frame of the contact unsubscribe page: a plain form that posts
 * back to the same URL (no script, no cookies). Turning emails back on is done in the alert settings.
 */
export function alertUnsubscribePage(v: AlertUnsubscribeView): string {
  const what = WHAT[v.kind];
  const scope = v.locationName ? (
    <>
      {" for "}
      <strong>{v.locationName}</strong>
    </>
  ) : null;
  const to = v.address ? ` to ${v.address}` : "";
  return publicPage({
    title: v.subscribed ? "Unsubscribe from alerts" : "Alerts unsubscribed",
    children: v.subscribed ? (
      <>
        <h1 id="title">Stop {what}?</h1>
        <p>
          We will stop sending {what}
          {scope}
          {to}.
        </p>
        <OneClickUnsubscribeForm />
      </>
    ) : (
      <>
        <h1 id="title">You are unsubscribed</h1>
        <p class="status" role="status">
          You will no longer receive {what}
          {scope}
          {to}.
        </p>
        <p class="muted">To turn them back on, change your alert settings.</p>
      </>
    ),
  });
}
