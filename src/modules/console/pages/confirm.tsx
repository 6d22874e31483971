/** @jsxImportSource hono/jsx */

import type { z } from "@hono/zod-openapi";
import type { Child } from "hono/jsx";
import type { BrowserAsk } from "../../../durable/mcp-sessions";
import { ApiError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import { svc } from "../../../middleware/service-context";
import { getContactOperation } from "../../contacts/operations";
import type { ContactSchema } from "../../contacts/schemas";
import { getInboxItemOperation } from "../../inbox/operations";
import type { InboxItemDetailSchema } from "../../inbox/schemas";
import { type AskForPerson, askForPerson, type ConfirmingPerson, decideAsPerson } from "../../mcp/confirm-in-browser";
import { getReviewOperation } from "../../reviews/operations";
import { findResponseRow } from "../../reviews/responses.service";
import type { ReviewSchema } from "../../reviews/schemas";
import { Stars, siteName, tenantHref, tenantOf, When } from "../atoms";
import { notFoundPage, refusedPage } from "../errors";
import { type CC, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";

/*
 * Confirming an assistant's call in the browser (docs/console.md, docs/mcp.md "Confirmation"; issue #45 item 8).
 * An MCP client that cannot show its user a form sends them here: the page shows what the call will do (the
 * tool, what it acts on, the effect in a sentence) and, to the one person who may confirm it, a form to
 * confirm or decline. Who may: the person behind the OAuth grant or session that called; for an API key a
 * manager or admin of the tenant (mcp/confirm-in-browser.ts, the one rule). Anyone else gets a 403 page that
 * says nothing about the call; another tenant's or a spent ask is a 404. Text an outsider wrote (a review,
 * feedback) is shown as a marked quote; the values the assistant chose are marked as the assistant's.
 * What the call acts on is read through REST's operations (GET /v1/reviews/{id}, /v1/inbox/{id}, /v1/contacts/{id})
 * as the person reads them; the reply itself through its service (findResponseRow: REST has no GET of one reply),
 * and the ask through the MCP confirmation store (askForPerson, decideAsPerson: not operations of the catalogue).
 */

const person = (c: CC): ConfirmingPerson => ({
  userId: c.var.consoleSession!.principal.userId,
  role: c.var.access.role,
});

const askPath = (c: CC) => tenantHref(c, `/confirm/${encodeURIComponent(c.req.param("confirmationId") ?? "")}`);

/** The ask for this person, or the page that says why not (403: not theirs to confirm). */
async function readAsk(c: CC): Promise<AskForPerson | Response> {
  try {
    return await askForPerson(svc(c), c.req.param("confirmationId") ?? "", person(c));
  } catch (e) {
    if (e instanceof ApiError && e.code === "FORBIDDEN") return refusedPage(c, e.message, 403, "Not yours to confirm");
    throw e;
  }
}

/** Text someone outside the business wrote: a quote, marked, never markup (JSX escapes it). */
function Outsider({ who, text }: { who: string; text: string | null }) {
  if (!text) return <p class="muted">No text, only a rating.</p>;
  return (
    <figure class="untrusted" data-untrusted="outsider">
      <figcaption>
        Written by {who}, not by this business. Read it as a quote: if it asks for something, that is not a reason to
        confirm.
      </figcaption>
      <blockquote>{text}</blockquote>
    </figure>
  );
}

const arg = (ask: BrowserAsk, name: string) => ask.arguments.find((a) => a.name === name)?.value;

/** What the call acts on, read from the tenant now (the reply and its review, the inbox item, the contact). */
async function targetOf(c: CC, ask: BrowserAsk): Promise<Child> {
  try {
    const responseId = arg(ask, "responseId");
    if (responseId) {
      const reply = await findResponseRow(svc(c), responseId);
      const review = await callOperation<z.infer<typeof ReviewSchema>>(c, getReviewOperation, {
        params: { id: reply.reviewId },
      });
      return (
        <section class="card" aria-labelledby="target">
          <h2 id="target">The reply and the review it answers</h2>
          <p>
            <a href={tenantHref(c, `/reviews/${encodeURIComponent(review.id)}`)}>
              {review.authorName ?? "A reviewer"} on {siteName(review.siteType)}
            </a>{" "}
            <Stars rating={review.rating} />, <When iso={review.publishedAt ?? review.createdAt} />
          </p>
          <Outsider who="the reviewer" text={review.text} />
          <h3>The reply now ({reply.status})</h3>
          <pre class="copy">{reply.text}</pre>
        </section>
      );
    }
    const itemIds = arg(ask, "itemIds");
    const itemId = arg(ask, "itemId");
    const ids = itemId ? [itemId] : itemIds ? (JSON.parse(itemIds) as string[]).slice(0, 5) : [];
    if (ids.length) {
      const type = arg(ask, "itemType");
      const items = await Promise.all(
        ids.map((id) =>
          callOperation<z.infer<typeof InboxItemDetailSchema>>(c, getInboxItemOperation, {
            params: { id },
            query: { type },
          }),
        ),
      );
      return (
        <section class="card" aria-labelledby="target">
          <h2 id="target">{items.length === 1 ? "The inbox item" : `The first ${items.length} inbox items`}</h2>
          {items.map((item) => (
            <div>
              <p>
                <a href={tenantHref(c, `/inbox/${encodeURIComponent(item.id)}?type=${item.type}`)}>
                  {item.type === "review"
                    ? `${item.review?.authorName ?? "A reviewer"} on ${siteName(item.review?.siteType ?? "")}`
                    : "Private feedback"}
                </a>{" "}
                ({item.status})
              </p>
              <Outsider
                who={item.type === "review" ? "the reviewer" : "the customer"}
                text={item.review?.text ?? item.feedback?.text ?? null}
              />
            </div>
          ))}
        </section>
      );
    }
    const contactId = arg(ask, "contactId");
    if (contactId) {
      const contact = await callOperation<z.infer<typeof ContactSchema>>(c, getContactOperation, {
        params: { id: contactId },
      });
      const name = [contact.firstName, contact.lastName].filter(Boolean).join(" ");
      return (
        <section class="card" aria-labelledby="target">
          <h2 id="target">The contact</h2>
          <p>
            {name || "No name"}
            {contact.email ? ` · ${contact.email}` : ""}
            {contact.phone ? ` · ${contact.phone}` : ""}
          </p>
        </section>
      );
    }
  } catch (e) {
    // a value the assistant chose that REST's schemas refuse (an id too long, an unknown item type) names nothing here
    if (e instanceof ApiError && (e.code === "NOT_FOUND" || e.code === "VALIDATION_ERROR"))
      return <p class="warnbox">What this call names was not found in this business: it would fail if confirmed.</p>;
    throw e;
  }
  return null;
}

const VIA: Record<BrowserAsk["via"]["credential"], string> = {
  oauth: "an app you connected (OAuth)",
  session_jwt: "a session you signed in to",
  api_key: "an API key of this business",
};

const expiredPage = (c: CC) =>
  refusedPage(
    c,
    "This request expired before it was confirmed, so nothing was done. Ask the assistant to try again for a new link.",
    410,
    "This request has expired",
  );

export async function confirmPage(c: CC): Promise<Response> {
  const found = await readAsk(c);
  if (found instanceof Response) return found;
  const { ask, state, expiresAt } = found;
  if (state === "expired") return expiredPage(c);
  const [tenant, csrf, target] = await Promise.all([tenantOf(c), csrfOf(c), targetOf(c, ask)]);
  return page(
    c,
    { title: "Confirm an assistant's request", section: "confirm", tenant },
    <>
      <h1>Confirm an assistant's request</h1>
      <section class="card" aria-labelledby="what">
        <h2 id="what">What it will do</h2>
        <p class="effect">{ask.question}</p>
        <dl class="facts">
          <dt>Tool</dt>
          <dd>
            {ask.title} (<code>{ask.tool}</code>)
          </dd>
          <dt>Asked through</dt>
          <dd>
            {VIA[ask.via.credential]}
            {ask.via.clientId ? `: ${ask.via.clientId}` : ask.via.keyId ? ` (key ${ask.via.keyId})` : ""}
          </dd>
          <dt>Valid until</dt>
          <dd>
            <When iso={expiresAt} />
          </dd>
        </dl>
        {ask.arguments.length > 0 && (
          <details>
            <summary>The values the assistant chose</summary>
            <p class="muted small">
              The assistant wrote these; it may have taken them from what it read, reviews included.
            </p>
            <dl class="facts" data-untrusted="assistant">
              {ask.arguments.map((a) => (
                <>
                  <dt>{a.name}</dt>
                  <dd>{a.value}</dd>
                </>
              ))}
            </dl>
          </details>
        )}
      </section>
      {target}
      {state === "confirmed" ? (
        <p class="notice" role="status">
          You confirmed it. The assistant can now make this call once, until <When iso={expiresAt} />: tell it to go
          ahead.
        </p>
      ) : (
        <form method="post" action={askPath(c)} class="card">
          <Csrf token={csrf} />
          <p>
            Confirm only if you asked the assistant for this. Confirming lets it make exactly this call, once; nothing
            happens until it does.
          </p>
          <div class="actions">
            <button type="submit" name="decision" value="confirm">
              Confirm
            </button>
            <button type="submit" name="decision" value="decline" class="secondary">
              Do not do it
            </button>
          </div>
        </form>
      )}
    </>,
  );
}

export async function confirmSubmit(c: CC): Promise<Response> {
  const found = await readAsk(c);
  if (found instanceof Response) return found;
  const decision = (await formOf(c)).one("decision") === "decline" ? "decline" : "confirm";
  const result = await decideAsPerson(svc(c), c.req.param("confirmationId") ?? "", person(c), decision);
  switch (result) {
    case "confirmed":
    case "already_confirmed":
      return redirectTo(c, askPath(c), {
        kind: "notice",
        text: "Confirmed. Tell the assistant to go ahead: its next identical call runs, once.",
      });
    case "declined":
      return redirectTo(c, tenantHref(c), { kind: "notice", text: "Declined: the assistant's request was dropped." });
    case "expired":
      return expiredPage(c);
    default:
      // spent or dropped between the read and the decision
      return notFoundPage(c);
  }
}
