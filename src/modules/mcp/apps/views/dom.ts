// DOM helpers of the cards. Every piece of data goes in as a text node or an attribute value set
// through the DOM (never innerHTML): review text is written by strangers and must stay text.

export type Child = Node | string | number | null | undefined | false;

/** An element with attributes (set one by one, never parsed as HTML) and children (text as text nodes). */
export function h(tag: string, attrs: Record<string, string | boolean | undefined> = {}, ...children: Child[]) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? "" : value);
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

let nextId = 0;
/** A unique id for label/for and aria-describedby pairs. */
export const uid = (prefix: string) => `${prefix}-${++nextId}`;

/** A labelled input: the label names the field for screen readers and is clickable. */
export function field(label: string, input: HTMLInputElement | HTMLTextAreaElement) {
  const id = uid("f");
  input.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), input);
}

/** Tells the result of an action in the polite live region (read out by screen readers). */
export function announce(message: string, tone: "ok" | "error" | "info" = "info") {
  const status = document.getElementById("status")!;
  status.className = tone;
  status.textContent = message;
}

/** Replaces the card's content and marks it ready. */
export function show(...children: Child[]) {
  const main = document.getElementById("card")!;
  main.replaceChildren();
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    main.append(typeof c === "number" ? String(c) : c);
  }
  main.setAttribute("aria-busy", "false");
}

export const stars = (rating: number | null | undefined) =>
  typeof rating === "number" ? `${"★".repeat(Math.round(rating))}${"☆".repeat(5 - Math.round(rating))}` : "";
