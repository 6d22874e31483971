/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import { listResponseApprovalQueueOperation } from "../../reviews/responses.operations";
import { type AnsweredReviewSchema, QUEUE_STATUSES, type ReviewResponseSchema } from "../../reviews/responses.schemas";
import { Stars, siteName, tenantHref, tenantOf, When } from "../atoms";
import { type CC, csrfOf, page } from "../kit";
import { ReplyCard } from "./replies";

/*
 * Approvals (docs/console.md): the replies waiting for a decision, each with the review it answers; the
 * approved ones not yet live (to publish, by API or by hand, or held by the site's moderators); and the
 * rejected ones with the reason (an approver's, or the site's policy). GET /v1/responses/approval-queue with
 * include=review (listResponseApprovalQueue: each reply with the review it answers, in one read; a signed-in
 * person holds read:reviews). The forms are the replies' operations (replies.tsx).
 */

type Queued = z.infer<typeof ReviewResponseSchema> & { review?: z.infer<typeof AnsweredReviewSchema> | null };

const TABS: Record<(typeof QUEUE_STATUSES)[number], string> = {
  submitted: "Waiting for approval",
  approved: "Approved, not yet live",
  rejected: "Rejected",
};

export async function approvalsPage(c: CC): Promise<Response> {
  // checked by the operation's query schema (an unknown state is REST's 400)
  const status = (c.req.query("status") || "submitted") as (typeof QUEUE_STATUSES)[number];
  const [tenant, answer, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Queued[]>(c, listResponseApprovalQueueOperation, {
      query: { status: c.req.query("status"), limit: "50", include: "review" },
    }),
    csrfOf(c),
  ]);
  // a person holds read:reviews (the role decides), so every reply comes with its review
  const queue = answer.flatMap((r) => (r.review ? [{ ...r, review: r.review }] : []));
  const base = tenantHref(c);
  const here = tenantHref(c, `/approvals${status === "submitted" ? "" : `?status=${status}`}`);
  return page(
    c,
    { title: "Approvals", section: "approvals", tenant },
    <>
      <h1>Approvals</h1>
      <nav aria-label="Replies by state">
        <ul class="meta">
          {QUEUE_STATUSES.map((s) => (
            <li>
              <a
                href={tenantHref(c, `/approvals${s === "submitted" ? "" : `?status=${s}`}`)}
                aria-current={s === status ? "page" : undefined}
              >
                {TABS[s]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <h2>{TABS[status]}</h2>
      {queue.length === 0 && (
        <p class="card">
          {status === "submitted"
            ? "No reply is waiting for approval."
            : status === "approved"
              ? "Every approved reply is live."
              : "No rejected reply."}
        </p>
      )}
      {queue.map((r) => (
        <section class="card" aria-label={`Reply to ${r.review.authorName ?? "a reviewer"}`}>
          <div class="item-head">
            <a href={tenantHref(c, `/reviews/${encodeURIComponent(r.review.id)}`)}>
              {r.review.authorName ?? "A reviewer"} on {siteName(r.review.siteType)}
              {r.review.locationName ? `, ${r.review.locationName}` : ""}
            </a>
            <Stars rating={r.review.rating} />
          </div>
          {r.review.text ? <blockquote>{r.review.text}</blockquote> : <p class="muted">No text, only a rating.</p>}
          <ul class="meta">
            <li>
              Review of <When iso={r.review.publishedAt} />
            </li>
          </ul>
          <ReplyCard
            c={c}
            r={r}
            site={r.review.siteType}
            reviewUrl={r.review.externalUrl}
            csrf={csrf}
            back={here}
            base={base}
          />
        </section>
      ))}
    </>,
  );
}
