/** @jsxImportSource hono/jsx */
import { validationError } from "../../../lib/errors";
import { svc } from "../../../middleware/service-context";
import { QUEUE_STATUSES, QueueQuery } from "../../reviews/responses.schemas";
import { listApprovalQueueWithReviews } from "../../reviews/responses.service";
import { Stars, siteName, tenantHref, tenantOf, When } from "../atoms";
import { type CC, csrfOf, page } from "../kit";
import { ReplyCard } from "./replies";

/*
 * Approvals (docs/console.md): the replies waiting for a decision, each with the review it answers; the
 * approved ones not yet live (to publish, by API or by hand, or held by the site's moderators); and the
 * rejected ones with the reason (an approver's, or the site's policy). GET /v1/responses/approval-queue's
 * query (status) and the MCP approval card's read (listApprovalQueueWithReviews), a service call and not an
 * operation: each reply is shown with the review it answers, which no operation answers for the three tabs
 * (listResponseApprovalQueue answers the replies alone; approval.list-pending, MCP only, has no status and no
 * REST door). The forms are the replies' operations (replies.tsx).
 */

const TABS: Record<(typeof QUEUE_STATUSES)[number], string> = {
  submitted: "Waiting for approval",
  approved: "Approved, not yet live",
  rejected: "Rejected",
};

export async function approvalsPage(c: CC): Promise<Response> {
  const parsed = QueueQuery.safeParse({ status: c.req.query("status") || undefined, limit: "50" });
  if (!parsed.success)
    throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  const status = parsed.data.status;
  const [tenant, queue, csrf] = await Promise.all([
    tenantOf(c),
    listApprovalQueueWithReviews(svc(c), parsed.data),
    csrfOf(c),
  ]);
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
