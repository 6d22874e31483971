import type { App } from "@modelcontextprotocol/ext-apps";
import { type Action, actionButton } from "./calls";
import { age, field, h, show, stars } from "./dom";

// The reply approval card: the review (stranger's text, shown as text), each drafted reply with
// approve / edit / reject, calling response.approve, response.update and response.reject.

interface Review {
  authorName?: string | null;
  rating?: number | null;
  text?: string | null;
  siteType?: string;
  publishedAt?: string | null;
}
interface Reply {
  id: string;
  text: string;
  status: string;
  rejectionReason?: string | null;
  submittedAt?: string | null;
}

/** inbox.get gives {review, responses}; approval.list-pending gives {data: replies}. */
function readInput(structured: unknown): { review: Review | null; replies: Reply[] } {
  const s = (structured ?? {}) as { review?: Review | null; responses?: Reply[]; data?: Reply[] };
  return { review: s.review ?? null, replies: s.responses ?? s.data ?? [] };
}

function reviewBlock(review: Review) {
  return h(
    "section",
    { class: "review", "aria-label": "The review" },
    h(
      "p",
      { class: "meta" },
      h("span", { class: "stars", "aria-label": `${review.rating ?? "no"} of 5 stars` }, stars(review.rating)),
      " ",
      review.authorName ?? "Anonymous",
      review.siteType ? ` · ${review.siteType}` : "",
      review.publishedAt ? ` · ${age(review.publishedAt)}` : "",
    ),
    h("blockquote", { class: "untrusted" }, review.text ?? "(no text)"),
  );
}

function replyBlock(app: App, reply: Reply) {
  const text = h("textarea", { rows: "4", maxlength: "5000" }) as HTMLTextAreaElement;
  text.value = reply.text;
  const reason = h("input", { type: "text", maxlength: "500", placeholder: "optional" }) as HTMLInputElement;
  const confirmIn = h("div", { class: "confirm-slot" });
  const status = h("span", { class: `badge ${reply.status}` }, reply.status);
  const after = (structured: unknown) => {
    const next = (structured as Reply | undefined)?.status;
    if (next) status.textContent = next;
  };
  const act = (name: string, args: Record<string, unknown>, done: string): Action => ({
    name,
    args: { responseId: reply.id, ...args },
    done,
    confirmIn,
    after,
  });
  const buttons = h(
    "div",
    { class: "actions" },
    actionButton(app, "Approve", () => act("response.approve", {}, "Reply approved."), true),
    actionButton(app, "Save edit", () => act("response.update", { text: text.value }, "Reply saved.")),
    actionButton(app, "Reject", () =>
      act("response.reject", reason.value.trim() ? { reason: reason.value.trim() } : {}, "Reply rejected."),
    ),
  );
  return h(
    "article",
    { class: "reply", "aria-label": `Drafted reply ${reply.id}` },
    h("p", { class: "meta" }, "Drafted reply ", status),
    field("Reply text", text),
    field("Reason if you reject", reason),
    buttons,
    confirmIn,
  );
}

export function renderApproval(app: App, structured: unknown) {
  const { review, replies } = readInput(structured);
  show(
    h("h1", {}, "Reply approval"),
    review ? reviewBlock(review) : null,
    replies.length ? null : h("p", { class: "muted" }, "No drafted replies are waiting."),
    ...replies.map((r) => replyBlock(app, r)),
  );
}
