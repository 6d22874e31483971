/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import {
  approveResponseOperation,
  createReviewResponseOperation,
  publishResponseOperation,
  rejectResponseOperation,
  updateResponseOperation,
} from "../../reviews/operations";
import { submitResponseOperation } from "../../reviews/responses.operations";
import type { ReviewResponseSchema } from "../../reviews/responses.schemas";
import { siteName, When } from "../atoms";
import { act, backOf, type CC, can, formOf, redirectTo, refusesFields } from "../kit";
import { Csrf } from "../layout";

/*
 * A review's replies as they are (docs/console.md, "Replies"): draft, waiting for approval, approved, held by
 * the site's moderators, refused with the site's policy, published (by API, on our own page, or by hand), and
 * the moves the person's role allows on each. Each form calls the operation of its REST twin (callOperation).
 */

type Reply = z.infer<typeof ReviewResponseSchema>;

/** Sites whose replies are posted by hand (no reply API, or Yelp's partner API that is off by default). */
const MANUAL_SITES = new Set(["yelp", "facebook"]);

function ReplyState({ r, site }: { r: Reply; site: string }) {
  const m = r.moderation;
  switch (r.status) {
    case "draft":
      return <span class="status">Draft{r.aiGenerated ? " (written by AI)" : ""}</span>;
    case "submitted":
      return (
        <span class="status warn">
          Waiting for approval since <When iso={r.submittedAt} />
        </span>
      );
    case "approved":
      return m?.state === "pending" ? (
        <span class="status warn">
          Sent to {siteName(site)}: held by its moderators (checked <When iso={m.checkedAt} />)
        </span>
      ) : (
        <span class="status ok">Approved: ready to publish</span>
      );
    case "rejected":
      return m?.state === "rejected" ? (
        <span class="status bad">
          Refused by {siteName(site)}'s moderators{m.policyViolation ? `: ${m.policyViolation}` : ""}
        </span>
      ) : (
        <span class="status bad">Rejected{r.rejectionReason ? `: ${r.rejectionReason}` : ""}</span>
      );
    case "published":
      return (
        <span class="status ok">
          {r.publishedVia === "manual"
            ? "Posted by hand on the site"
            : r.publishedVia === "local"
              ? "Published on our review page"
              : `Published on ${siteName(r.publishedVia ?? site)}`}{" "}
          <When iso={r.publishedAt} />
        </span>
      );
  }
}

/** One reply with what may be done with it now. `back` is the page the forms return to. */
export function ReplyCard(props: {
  c: CC;
  r: Reply;
  site: string;
  reviewUrl: string | null;
  csrf: string;
  back: string;
  base: string;
}) {
  const { c, r, csrf, back, base } = props;
  const path = (action: string) => `${base}/replies/${encodeURIComponent(r.id)}/${action}`;
  const writer = can(c, "tenant_user");
  const manager = can(c, "manager");
  const held = r.moderation?.state === "pending";
  const textId = `reply-text-${r.id}`;
  const Back = () => <input type="hidden" name="back" value={back} />;
  return (
    <article class="card" aria-labelledby={`reply-${r.id}`}>
      <h3 id={`reply-${r.id}`}>
        Reply <ReplyState r={r} site={props.site} />
      </h3>
      <pre class="copy" id={textId}>
        {r.text}
      </pre>
      {r.publishedUrl && (
        <p>
          <a href={r.publishedUrl}>See it on the site</a>
        </p>
      )}
      {writer && (r.status === "draft" || r.status === "rejected") && (
        <form method="post" action={path("edit")}>
          <Csrf token={csrf} />
          <Back />
          <label for={`edit-${r.id}`}>Edit the reply</label>
          <textarea id={`edit-${r.id}`} name="text" required maxlength={5000}>
            {r.text}
          </textarea>
          <div class="actions">
            <button type="submit" class="secondary">
              Save the draft
            </button>
          </div>
        </form>
      )}
      {writer && r.status === "draft" && (
        <form method="post" action={path("submit")}>
          <Csrf token={csrf} />
          <Back />
          <div class="actions">
            <button type="submit">Submit for approval</button>
          </div>
        </form>
      )}
      {manager && r.status === "submitted" && (
        <>
          <div class="actions">
            <form method="post" action={path("approve")}>
              <Csrf token={csrf} />
              <Back />
              <button type="submit">Approve</button>
            </form>
          </div>
          <form method="post" action={path("reject")}>
            <Csrf token={csrf} />
            <Back />
            <label for={`reason-${r.id}`}>Reason for rejecting (the writer sees it)</label>
            <input id={`reason-${r.id}`} name="reason" type="text" maxlength={1000} />
            <div class="actions">
              <button type="submit" class="danger">
                Reject
              </button>
            </div>
          </form>
          <details>
            <summary>Edit, then approve</summary>
            <form method="post" action={path("approve")}>
              <Csrf token={csrf} />
              <Back />
              <label for={`approve-text-${r.id}`}>The reply as it will be approved</label>
              <textarea id={`approve-text-${r.id}`} name="text" required maxlength={5000}>
                {r.text}
              </textarea>
              <div class="actions">
                <button type="submit">Approve this text</button>
              </div>
            </form>
          </details>
        </>
      )}
      {manager && r.status === "approved" && !held && (
        <>
          {!MANUAL_SITES.has(props.site) && (
            <form method="post" action={path("publish")}>
              <Csrf token={csrf} />
              <Back />
              <div class="actions">
                <button type="submit">Publish on {siteName(props.site)}</button>
              </div>
            </form>
          )}
          <ManualPublish {...props} path={path("publish")} textId={textId} open={MANUAL_SITES.has(props.site)} />
        </>
      )}
    </article>
  );
}

/** The by-hand path: copy the reply, post it on the site, then say so (the reply becomes published, audited). */
function ManualPublish(props: {
  r: Reply;
  site: string;
  reviewUrl: string | null;
  csrf: string;
  back: string;
  path: string;
  textId: string;
  open: boolean;
}) {
  const body = (
    <form method="post" action={props.path}>
      <Csrf token={props.csrf} />
      <input type="hidden" name="back" value={props.back} />
      <input type="hidden" name="manual" value="true" />
      <ol>
        <li>
          Copy the reply above.{" "}
          <button
            type="button"
            class="secondary"
            data-copy={props.textId}
            data-copied="Reply copied to the clipboard."
            hidden
          >
            Copy the reply
          </button>
        </li>
        <li>
          Post it on {siteName(props.site)}
          {props.reviewUrl ? (
            <>
              {": "}
              <a href={props.reviewUrl}>open the review on {siteName(props.site)}</a>
            </>
          ) : (
            ", under the review"
          )}
          .
        </li>
        <li>Once it shows there, mark it published here.</li>
      </ol>
      <label for={`url-${props.r.id}`}>Address of the posted reply (optional)</label>
      <input id={`url-${props.r.id}`} name="externalUrl" type="url" maxlength={2000} />
      <div class="actions">
        <button type="submit" class={props.open ? "" : "secondary"}>
          Mark published
        </button>
      </div>
    </form>
  );
  return props.open ? (
    <section aria-label={`Post on ${siteName(props.site)} by hand`}>
      <p class="warnbox">{siteName(props.site)} replies are posted by hand: its site takes no replies from us.</p>
      {body}
    </section>
  ) : (
    <details>
      <summary>Posted it by hand instead?</summary>
      {body}
    </details>
  );
}

/** The new-reply form of a review: written by hand, or drafted by AI from the review and the brand's voice. */
export function NewReply({
  reviewId,
  csrf,
  back,
  base,
}: {
  reviewId: string;
  csrf: string;
  back: string;
  base: string;
}) {
  const action = `${base}/reviews/${encodeURIComponent(reviewId)}/replies`;
  return (
    <section class="card" aria-labelledby="new-reply">
      <h3 id="new-reply">Write a reply</h3>
      <form method="post" action={action}>
        <Csrf token={csrf} />
        <input type="hidden" name="back" value={back} />
        <label for="new-reply-text">Reply</label>
        <textarea id="new-reply-text" name="text" required maxlength={5000}></textarea>
        <div class="actions">
          <button type="submit">Save as draft</button>
        </div>
      </form>
      <form method="post" action={action}>
        <Csrf token={csrf} />
        <input type="hidden" name="back" value={back} />
        <input type="hidden" name="ai" value="true" />
        <div class="actions">
          <button type="submit" class="secondary">
            Draft one with AI
          </button>
        </div>
      </form>
    </section>
  );
}

// ---- the forms' handlers: each the operation of its REST twin

const replyId = (c: CC) => c.req.param("replyId") ?? "";

/**
 * POST …/reviews/{reviewId}/replies (REST: POST /v1/reviews/{reviewId}/responses, tenant_user); its schema's
 * refusal of the text is "write it first".
 */
export async function createReplySubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  return act(c, back, async () => {
    let reply: Reply;
    try {
      reply = await callOperation<Reply>(c, createReviewResponseOperation, {
        params: { reviewId: c.req.param("reviewId") ?? "" },
        body: form.one("ai") === "true" ? { useAi: true } : { text: form.one("text") },
      });
    } catch (e) {
      if (refusesFields(e, ["text", "useAi"]))
        return redirectTo(c, back, { kind: "error", text: "Write the reply first." });
      throw e;
    }
    return redirectTo(c, back, {
      kind: "notice",
      text: reply.aiGenerated ? "A draft was written: read it, edit it, then submit it." : "The draft is saved.",
    });
  });
}

export async function editReplySubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  return act(c, back, async () => {
    await callOperation(c, updateResponseOperation, { params: { id: replyId(c) }, body: { text: form.one("text") } });
    return redirectTo(c, back, { kind: "notice", text: "The draft is saved." });
  });
}

/** REST: POST /v1/responses/{id}/submit (tenant_user). */
export async function submitReplySubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  return act(c, back, async () => {
    await callOperation(c, submitResponseOperation, { params: { id: replyId(c) } });
    return redirectTo(c, back, { kind: "notice", text: "Submitted: a manager approves it next." });
  });
}

export async function approveReplySubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  const text = form.one("text");
  return act(c, back, async () => {
    await callOperation(c, approveResponseOperation, {
      params: { id: replyId(c) },
      body: text ? { text } : {},
    });
    return redirectTo(c, back, { kind: "notice", text: "Approved: it can be published now." });
  });
}

export async function rejectReplySubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  const reason = form.one("reason").trim();
  return act(c, back, async () => {
    await callOperation(c, rejectResponseOperation, {
      params: { id: replyId(c) },
      body: reason ? { reason } : {},
    });
    return redirectTo(c, back, { kind: "notice", text: "Rejected: the writer sees your reason." });
  });
}

export async function publishReplySubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  const manual = form.one("manual") === "true";
  const url = form.one("externalUrl").trim();
  return act(c, back, async () => {
    const reply = await callOperation<Reply>(c, publishResponseOperation, {
      params: { id: replyId(c) },
      body: manual ? { manual: true, ...(url ? { externalUrl: url } : {}) } : {},
    });
    const text =
      reply.status === "published"
        ? manual
          ? "Marked published."
          : "Published."
        : "Sent: the site's moderators check it before it shows.";
    return redirectTo(c, back, { kind: "notice", text });
  });
}
