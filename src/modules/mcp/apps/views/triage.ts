import type { App } from "@modelcontextprotocol/ext-apps";
import { actionButton } from "./calls";
import { age, field, h, show, stars } from "./dom";

// The inbox triage card: each item (stranger's excerpt, shown as text) with how long it has waited
// and whether the SLA escalated it, and assign / tag / close calling inbox.assign, inbox.set-tags and
// inbox.set-status.

interface Item {
  id: string;
  type: "review" | "feedback";
  status: string;
  rating: number | null;
  excerpt: string | null;
  assignedToUserId: string | null;
  tags: string[];
  escalatedAt: string | null;
  escalationReason: string | null;
  createdAt: string;
}

function itemBlock(app: App, item: Item) {
  const assignee = h("input", { type: "text", maxlength: "64", placeholder: "user id" }) as HTMLInputElement;
  assignee.value = item.assignedToUserId ?? "";
  const tags = h("input", { type: "text", maxlength: "400", placeholder: "comma, separated" }) as HTMLInputElement;
  tags.value = item.tags.join(", ");
  const confirmIn = h("div", { class: "confirm-slot" });
  const status = h("span", { class: `badge ${item.status}` }, item.status);
  const after = (next: string) => () => {
    status.textContent = next;
  };
  const due = item.escalatedAt
    ? h(
        "span",
        { class: "badge overdue" },
        `Escalated ${age(item.escalatedAt)}${item.escalationReason ? `: ${item.escalationReason}` : ""}`,
      )
    : h("span", { class: "muted" }, `waiting since ${age(item.createdAt)}`);
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
      due,
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
  // what breached its SLA first, then the longest waiting
  items.sort(
    (a, b) => Number(Boolean(b.escalatedAt)) - Number(Boolean(a.escalatedAt)) || a.createdAt.localeCompare(b.createdAt),
  );
  show(
    h("h1", {}, "Inbox triage"),
    items.length
      ? h("ul", { class: "items" }, ...items.map((i) => itemBlock(app, i)))
      : h("p", { class: "muted" }, "Nothing in the inbox."),
  );
}
