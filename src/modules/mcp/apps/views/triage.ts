import type { HostBridge } from "./bridge";
import { actionButton } from "./calls";
import { field, h, show, stars } from "./dom";
import { ago, span, utcTime, waitingSince } from "./words";

// The inbox triage card: each item (stranger's excerpt, shown as text) with how long it has waited,
// whether the SLA escalated it and, for a review past its SLA window, when the reply was due (read
// through the host from sla.overdue, matched by the item's reviewId), and assign / tag / close calling
// inbox.assign, inbox.set-tags and inbox.set-status. A closed or set-aside item shows that instead of
// the buttons. Without read:reviews sla.overdue is refused: the card shows the items without due times.

interface Item {
  id: string;
  type: "review" | "feedback";
  reviewId?: string | null;
  status: string;
  rating: number | null;
  excerpt: string | null;
  assignedToUserId: string | null;
  tags: string[];
  escalatedAt: string | null;
  escalationReason: string | null;
  createdAt: string;
}

/** A review's SLA due time, from sla.overdue (review id -> sla.dueAt). */
type DueTimes = Map<string, string>;

/** Items in these states need nothing more from triage: the card says so instead of offering buttons. */
const SETTLED: Record<string, string> = { resolved: "Closed.", ignored: "Set aside." };

const dueOf = (item: Item, due: DueTimes) =>
  item.type === "review" && item.reviewId ? due.get(item.reviewId) : undefined;

/** sla.overdue through the host: the due time of each overdue review, or null when refused or failed. */
async function readDueTimes(host: HostBridge): Promise<DueTimes | null> {
  try {
    // a host that never answers must not keep the card blank
    const r = await Promise.race([
      host.callTool("sla.overdue", { limit: 100 }),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
    ]);
    if (!r || r.isError) return null;
    const data = (r.structuredContent as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data)) return new Map();
    const due: DueTimes = new Map();
    for (const review of data as { id?: unknown; sla?: { dueAt?: unknown } }[])
      if (typeof review?.id === "string" && typeof review.sla?.dueAt === "string") due.set(review.id, review.sla.dueAt);
    return due;
  } catch {
    return null;
  }
}

function facts(item: Item, dueTimes: DueTimes) {
  const waited = item.escalatedAt
    ? h(
        "span",
        { class: "badge overdue" },
        `Escalated ${ago(item.escalatedAt)}${item.escalationReason ? `: ${item.escalationReason}` : ""}`,
      )
    : h("span", { class: "waited muted" }, `waiting ${waitingSince(item.createdAt)}`);
  const dueAt = dueOf(item, dueTimes);
  const sla = dueAt
    ? h(
        "span",
        { class: "badge overdue sla-due" },
        `SLA due ${utcTime(dueAt)} (overdue by ${span(Date.now() - Date.parse(dueAt))})`,
      )
    : null;
  return h(
    "p",
    { class: "meta" },
    h("strong", {}, item.type === "review" ? "Review" : "Feedback"),
    " ",
    item.rating !== null
      ? h("span", { class: "stars", "aria-label": `${item.rating} of 5 stars` }, stars(item.rating))
      : null,
    " ",
    h("span", { class: `badge ${item.status}` }, item.status.replace("_", " ")),
    " ",
    SETTLED[item.status] ? null : waited,
    sla ? " " : null,
    SETTLED[item.status] ? null : sla,
  );
}

function itemBlock(host: HostBridge, item: Item, dueTimes: DueTimes): HTMLElement {
  const redraw = (changes: Partial<Item>) => () => {
    const block = itemBlock(host, { ...item, ...changes }, dueTimes);
    li.replaceWith(block);
    block.querySelector<HTMLElement>(".outcome")?.focus();
  };
  const excerpt = h("blockquote", { class: "untrusted" }, item.excerpt || "(no text)");
  const settled = SETTLED[item.status];
  if (settled) {
    const li = h(
      "li",
      { class: "item" },
      facts(item, dueTimes),
      excerpt,
      h("p", { class: "outcome", tabindex: "-1" }, settled),
    );
    return li;
  }
  const assignee = h("input", { type: "text", maxlength: "64", placeholder: "user id" }) as HTMLInputElement;
  assignee.value = item.assignedToUserId ?? "";
  const tags = h("input", { type: "text", maxlength: "400", placeholder: "comma, separated" }) as HTMLInputElement;
  tags.value = item.tags.join(", ");
  const confirmIn = h("div", { class: "confirm-slot" });
  const li = h(
    "li",
    { class: "item" },
    facts(item, dueTimes),
    excerpt,
    h(
      "div",
      { class: "row" },
      field("Assign to", assignee),
      actionButton(host, "Assign", () => {
        const userId = assignee.value.trim() || null;
        return {
          name: "inbox.assign",
          args: { itemId: item.id, type: item.type, userId },
          what: userId ? "assign the item" : "unassign the item",
          done: userId ? "Item assigned." : "Item unassigned.",
          confirmIn,
          after: redraw({
            assignedToUserId: userId,
            status:
              userId && item.status === "new"
                ? "assigned"
                : !userId && item.status === "assigned"
                  ? "new"
                  : item.status,
          }),
        };
      }),
    ),
    h(
      "div",
      { class: "row" },
      field("Tags", tags),
      actionButton(host, "Save tags", () => {
        const list = tags.value
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean);
        return {
          name: "inbox.set-tags",
          args: { itemId: item.id, type: item.type, tags: list },
          what: "save the tags",
          done: "Tags saved.",
          confirmIn,
        };
      }),
    ),
    h(
      "div",
      { class: "actions" },
      actionButton(host, "Close", () => ({
        name: "inbox.set-status",
        args: { itemIds: [item.id], status: "resolved" },
        what: "close the item",
        done: "Item closed.",
        confirmIn,
        after: redraw({ status: "resolved" }),
      })),
    ),
    confirmIn,
  );
  return li;
}

export function renderTriage(host: HostBridge, structured: unknown) {
  const items = ((structured as { data?: Item[] } | undefined)?.data ?? []).slice();
  // the due times first (one call), then one render: nothing typed into the card is redrawn away
  void readDueTimes(host).then((due) => {
    const times = due ?? new Map<string, string>();
    // past its SLA due time first (the longest overdue first), then escalated, then the longest waiting
    const dueKey = (i: Item) => dueOf(i, times) ?? "\uffff";
    items.sort(
      (a, b) =>
        dueKey(a).localeCompare(dueKey(b)) ||
        Number(Boolean(b.escalatedAt)) - Number(Boolean(a.escalatedAt)) ||
        a.createdAt.localeCompare(b.createdAt),
    );
    show(
      h("h1", {}, "Inbox triage"),
      items.length
        ? h("ul", { class: "items" }, ...items.map((i) => itemBlock(host, i, times)))
        : h("p", { class: "muted" }, "Nothing in the inbox."),
    );
    // says whether the SLA due times could be read (sla.overdue needs read:reviews)
    document.getElementById("card")!.dataset.sla = due ? "shown" : "unavailable";
  });
}
