import type { HostBridge } from "./bridge";
import { type Action, actionButton } from "./calls";
import { field, h, show, stars } from "./dom";
import { ago } from "./words";

// The reply approval card: each drafted reply with the review it answers (a stranger's text, shown as
// text) and the buttons its state allows (the server's state table, reviews/response-states.ts):
// a reply waiting for approval gets Approve and Reject (response.approve, response.reject), a draft or
// a rejected reply Save edit (response.update); a decided reply shows its outcome instead.

interface Review {
  authorName?: string | null;
  rating?: number | null;
  text?: string | null;
  siteType?: string;
  /** approval.list-pending names the location; inbox.get gives only its id */
  locationName?: string | null;
  publishedAt?: string | null;
}
interface Reply {
  id: string;
  text: string;
  status: string;
  rejectionReason?: string | null;
  publishedAt?: string | null;
  publishedVia?: string | null;
  moderation?: { state?: string } | null;
  /** approval.list-pending: the review it answers, null when the caller may not read reviews */
  review?: Review | null;
}

/** inbox.get gives {review, responses}; approval.list-pending gives {data: replies with their reviews, reviews}. */
function readInput(structured: unknown) {
  const s = (structured ?? {}) as { review?: Review | null; responses?: Reply[]; data?: Reply[]; reviews?: string };
  return { review: s.review ?? null, replies: s.responses ?? s.data ?? [], withheld: s.reviews === "withheld" };
}

const SITES: Record<string, string> = {
  google: "Google",
  yelp: "Yelp",
  facebook: "Facebook",
  tripadvisor: "Tripadvisor",
  trustpilot: "Trustpilot",
  first_party: "our review page",
};
const siteName = (site: string | null | undefined) => (site ? (SITES[site] ?? site) : "");

const STATUS_WORDS: Record<string, string> = { submitted: "waiting for approval" };

function reviewBlock(review: Review) {
  const facts = [
    review.authorName || "Anonymous",
    siteName(review.siteType),
    review.locationName,
    review.publishedAt ? `published ${ago(review.publishedAt)}` : "",
  ].filter(Boolean);
  return h(
    "section",
    { class: "review", "aria-label": "The review" },
    h(
      "p",
      { class: "meta" },
      typeof review.rating === "number"
        ? h("span", { class: "stars", "aria-label": `${review.rating} of 5 stars` }, stars(review.rating))
        : null,
      typeof review.rating === "number" ? " " : null,
      facts.join(" · "),
    ),
    h("blockquote", { class: "untrusted" }, review.text || "(no text)"),
  );
}

/** What became of a reply that needs no decision any more; null while one is due. */
function outcomeOf(reply: Reply): string | null {
  switch (reply.status) {
    case "approved":
      return reply.moderation?.state === "pending" ? "Approved. The site's moderators are checking it." : "Approved.";
    case "published": {
      // publishedVia: the site posted to by API, "local" for a first-party review, "manual" when posted by hand
      const via = reply.publishedVia === "local" ? "first_party" : reply.publishedVia;
      const where = via === "manual" ? "by hand" : `on ${siteName(via) || "the site"}`;
      return `Published ${where}${reply.publishedAt ? ` ${ago(reply.publishedAt)}` : ""}.`;
    }
    case "rejected":
      return `Rejected.${reply.rejectionReason ? ` Reason: ${reply.rejectionReason}` : ""} Edit it to start it over as a draft.`;
    case "draft":
      return "A draft: not yet sent for approval.";
    default:
      return null;
  }
}

function replyBlock(host: HostBridge, reply: Reply, review: Review | null): HTMLElement {
  const confirmIn = h("div", { class: "confirm-slot" });
  const redraw = (structured: unknown) => {
    const next = structured as Reply | undefined;
    if (!next?.status) return;
    const block = replyBlock(host, { ...reply, ...next, review: reply.review }, review);
    article.replaceWith(block);
    // the buttons are gone: keyboard focus goes to what happened
    block.querySelector<HTMLElement>(".outcome")?.focus();
  };
  const act = (name: string, args: Record<string, unknown>, what: string, done: string): Action => ({
    name,
    args: { responseId: reply.id, ...args },
    what,
    done,
    confirmIn,
    after: redraw,
  });
  const outcome = outcomeOf(reply);
  const parts: (HTMLElement | null)[] = [];
  if (reply.status === "submitted") {
    const reason = h("input", { type: "text", maxlength: "1000", placeholder: "optional" }) as HTMLInputElement;
    parts.push(
      h("p", { class: "reply-text" }, reply.text),
      field("Reason if you reject", reason),
      h(
        "div",
        { class: "actions" },
        actionButton(host, "Approve", () => act("response.approve", {}, "approve the reply", "Reply approved."), true),
        actionButton(host, "Reject", () =>
          act(
            "response.reject",
            reason.value.trim() ? { reason: reason.value.trim() } : {},
            "reject the reply",
            "Reply rejected.",
          ),
        ),
      ),
    );
  } else if (reply.status === "draft" || reply.status === "rejected") {
    const text = h("textarea", { rows: "4", maxlength: "5000" }) as HTMLTextAreaElement;
    text.value = reply.text;
    parts.push(
      h("p", { class: "outcome", tabindex: "-1" }, outcome),
      field("Reply text", text),
      h(
        "div",
        { class: "actions" },
        actionButton(host, "Save edit", () =>
          act("response.update", { text: text.value }, "save the reply", "Reply saved as a draft."),
        ),
      ),
    );
  } else {
    parts.push(
      h("p", { class: "reply-text" }, reply.text),
      h("p", { class: "outcome", tabindex: "-1" }, outcome ?? reply.status),
    );
  }
  const author = review?.authorName;
  const article = h(
    "article",
    { class: "reply", "aria-label": author ? `Reply to ${author}'s review` : "Drafted reply" },
    review && reply.review !== undefined ? reviewBlock(review) : null,
    h(
      "p",
      { class: "meta" },
      "Drafted reply ",
      h("span", { class: `badge ${reply.status}` }, STATUS_WORDS[reply.status] ?? reply.status),
    ),
    ...parts,
    confirmIn,
  );
  return article;
}

export function renderApproval(host: HostBridge, structured: unknown) {
  const { review, replies, withheld } = readInput(structured);
  show(
    h("h1", {}, "Reply approval"),
    // inbox.get: one review, its replies below it
    review ? reviewBlock(review) : null,
    withheld
      ? h(
          "p",
          { class: "withheld muted" },
          "The reviews these replies answer are not shown: this connection was not granted read:reviews.",
        )
      : null,
    replies.length ? null : h("p", { class: "muted" }, "No drafted replies are waiting."),
    // approval.list-pending: each reply with its own review
    ...replies.map((r) => replyBlock(host, r, r.review === undefined ? review : r.review)),
  );
}
