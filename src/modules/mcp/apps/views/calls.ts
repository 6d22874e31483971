import type { HostBridge, ToolResult } from "./bridge";
import { announce, h } from "./dom";
import { explain, refusalOf } from "./words";

// A card's button asks the host to call one of our tools (tools/call through the host, never a
// request of its own): the server checks the caller's scopes and role as for any call. A tool that
// needs the user's confirmation (for a client that cannot show a form) answers with its question and
// a link to the console's confirm page (skills/run.ts): no code. The card shows the question and the
// link (opened by the host), and repeats the same call when the user says they confirmed there; the
// server runs it only if a person who may confirm did.

export interface Action {
  /** the tool and its arguments */
  name: string;
  args: Record<string, unknown>;
  /** what it does, for "Working: …" and "Could not …" ("approve the reply") */
  what: string;
  /** what the live region says when it worked */
  done: string;
  /** where a confirmation question is shown (next to the button that asked) */
  confirmIn: HTMLElement;
  /** runs after success with the tool's structured result */
  after?: (structured: unknown) => void;
}

export async function run(host: HostBridge, action: Action): Promise<void> {
  announce(`Working: ${action.what}…`);
  let result: ToolResult;
  try {
    result = await host.callTool(action.name, action.args);
  } catch (e) {
    announce(`Could not ${action.what}: ${e instanceof Error ? e.message : String(e)}.`, "error");
    return;
  }
  if (result.isError) {
    const refusal = refusalOf(result.content);
    if (refusal.confirmation) return askFirst(host, action, refusal.confirmation);
    announce(`Could not ${action.what}. ${explain(refusal)}`, "error");
    return;
  }
  announce(action.done, "ok");
  action.after?.(result.structuredContent);
}

/**
 * The tool's own question, the confirm page's link, and "I confirmed it" / Cancel: the first repeats the
 * same call (the server runs it only once a person confirmed on the page).
 */
function askFirst(host: HostBridge, action: Action, confirmation: { url: string; question: string }) {
  // our server's https (or local http) link; anything else is not made a link
  const href = /^https?:\/\//.test(confirmation.url) ? confirmation.url : undefined;
  const link = h("a", { href, target: "_blank", rel: "noopener noreferrer" }, "Confirm it in the browser");
  const yes = h("button", { type: "button", class: "primary" }, "I confirmed it, go ahead");
  const no = h("button", { type: "button" }, "Cancel");
  const box = h(
    "div",
    { class: "confirm", role: "group", "aria-label": "Confirm" },
    h("p", {}, confirmation.question),
    h("p", {}, link),
    yes,
    no,
  );
  action.confirmIn.replaceChildren(box);
  announce(`Please confirm in the browser: ${confirmation.question}`);
  // the card's frame cannot open a window: the host opens the page (ui/open-link); the link stays for hosts that let it
  link.addEventListener("click", (event) => {
    event.preventDefault();
    if (href) host.openLink(href).catch(() => announce(`Open this page to confirm: ${confirmation.url}`, "error"));
  });
  yes.addEventListener("click", () => {
    box.remove();
    void run(host, action);
  });
  no.addEventListener("click", () => {
    box.remove();
    announce("Cancelled: nothing was done.");
  });
  yes.focus();
}

/** A button that runs an action built when it is pressed (so it reads the inputs' values then). */
export function actionButton(host: HostBridge, label: string, build: () => Action | null, primary = false) {
  const button = h("button", { type: "button", class: primary ? "primary" : undefined }, label);
  button.addEventListener("click", async () => {
    const action = build();
    if (!action) return;
    button.setAttribute("disabled", "");
    try {
      await run(host, action);
    } finally {
      button.removeAttribute("disabled");
    }
  });
  return button;
}
