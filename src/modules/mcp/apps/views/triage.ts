import type { App } from "@modelcontextprotocol/ext-apps";
import { actionButton } from "./calls";
import { age, duration, field, h, show, stars, utcTime } from "./dom";

// The inbox triage card: each item (stranger's excerpt, shown as text) with how long it has waited,
// whether the SLA escalated it and, for a review past its SLA window, when the reply was due (read
// through the host from sla.overdue, matched by the item's reviewId), and assign / tag / close calling
// inbox.assign, inbox.set-tags and inbox.set-status. Without read:reviews sla.overdue is refused: the
// card shows the items without due times.

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

const dueOf = (item: Item, due: DueTimes) =>
  item.type === "review" && item.reviewId ? due.get(item.reviewId) : undefined;

/** sla.overdue through the host: the due time of each overdue review, or null when refused or failed. */
async function readDueTimes(app: App): Promise<DueTimes | null> {
  try {
    // a host that never answers must not keep the card blank
    const r = await Promise.race([
      app.callServerTool({ name: "sla.overdue", arguments: { limit: 100 } }),
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

function itemBlock(app: App, item: Item, dueTimes: DueTimes) {
  const assignee = h("input", { type: "text", maxlength: "64", placeholder: "user id" }) as HTMLInputElement;
  assignee.value = item.assignedToUserId ?? "";
  const tags = h("input", { type: "text", maxlength: "400", placeholder: "comma, separated" }) as HTMLInputElement;
  tags.value = item.tags.join(", ");
  const confirmIn = h("div", { class: "confirm-slot" });
  const status = h("span", { class: `badge ${item.status}` }, item.status);
  const after = (next: string) => () => {
    status.textContent = next;
  };
  const waited = item.escalatedAt
    ? h(
        "span",
        { class: "badge overdue" },
        `Escalated ${age(item.escalatedAt)}${item.escalationReason ? `: ${item.escalationReason}` : ""}`,
      )
    : h("span", { class: "muted" }, `waiting since ${age(item.createdAt)}`);
  const dueAt = dueOf(item, dueTimes);
  const sla = dueAt
    ? h(
        "span",
        { class: "badge overdue sla-due" },
        `SLA due ${utcTime(dueAt)} (overdue by ${duration(Date.now() - Date.parse(dueAt))})`,
      )
    : null;
  return h(
    "li",
    { class: "item" },
    h(
      "p",
      { class: "meta" },
      h("strong", {}, item.type === "review" ? "Review" : "Feedback"),
      " ",
      item.rating !== null
        ? h("span", { class: "stars", "aria-label": `${item.rating} of 5 stars` }, stars(item.rating))
        : null,
      " ",
      status,
      " ",
      waited,
      sla ? " " : null,
      sla,
    ),
    h("blockquote", { class: "untrusted" }, item.excerpt ?? "(no text)"),
    h(
      "div",
      { class: "row" },
      field("Assign to", assignee),
      actionButton(app, "Assign", () => ({
        name: "inbox.assign",
        args: { itemId: item.id, type: item.type, userId: assignee.value.trim() || null },
        done: assignee.value.trim() ? "Item assigned." : "Item unassigned.",
        confirmIn,
        after: after(assignee.value.trim() ? "assigned" : "new"),
      })),
    ),
    h(
      "div",
      { class: "row" },
      field("Tags", tags),
      actionButton(app, "Save tags", () => ({
        name: "inbox.set-tags",
        args: {
          itemId: item.id,
          type: item.type,
          tags: tags.value
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        },
        done: "Tags saved.",
        confirmIn,
      })),
    ),
    h(
      "div",
      { class: "actions" },
      actionButton(app, "Close", () => ({
        name: "inbox.set-status",
        args: { itemIds: [item.id], status: "resolved" },
        done: "Item closed.",
        confirmIn,
        after: after("resolved"),
      })),
    ),
    confirmIn,
  );
}

export function renderTriage(app: App, structured: unknown) {
  const items = ((structured as { data?: Item[] } | undefined)?.data ?? []).slice();
  // the due times first (one call), then one render: nothing typed into the card is redrawn away
  void readDueTimes(app).then((due) => {
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
        ? h("ul", { class: "items" }, ...items.map((i) => itemBlock(app, i, times)))
        : h("p", { class: "muted" }, "Nothing in the inbox."),
    );
    // says whether the SLA due times could be read (sla.overdue needs read:reviews)
    document.getElementById("card")!.dataset.sla = due ? "shown" : "unavailable";
  });
}
