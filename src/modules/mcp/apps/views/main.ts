import { renderApproval } from "./approval";
import { HostBridge, type HostContext } from "./bridge";
import { announce, h, show } from "./dom";
import { renderScore } from "./score";
import { renderTriage } from "./triage";
import { explain, refusalOf, useTimeZone } from "./words";

// The one script of every card (bundled by scripts/build-browser-code.mjs, inlined by cards.ts): it speaks
// to the host over postMessage (bridge.ts: ui/initialize, then the tool's result as a notification);
// body[data-card] says which card this document is.

const RENDERERS: Record<string, (host: HostBridge, structured: unknown) => void> = {
  "response-approval": renderApproval,
  "inbox-triage": renderTriage,
  "location-score": renderScore,
};

/** The host's theme (data-theme wins over prefers-color-scheme in card.css), style variables and time zone. */
function applyHost(ctx: HostContext) {
  const root = document.documentElement;
  if (ctx.theme === "light" || ctx.theme === "dark") {
    root.dataset.theme = ctx.theme;
    root.style.colorScheme = ctx.theme;
  }
  for (const [name, value] of Object.entries(ctx.styles?.variables ?? {}))
    if (name.startsWith("--") && typeof value === "string") root.style.setProperty(name, value);
  useTimeZone(ctx.timeZone);
}

const host = new HostBridge();
const render = RENDERERS[document.body.dataset.card ?? ""];

host.ontoolresult = (result) => {
  if (result.isError || !render) {
    show(
      h("p", { class: "error" }, result.isError ? explain(refusalOf(result.content)) : "This card cannot show that."),
    );
    return;
  }
  render(host, result.structuredContent);
};
host.ontoolcancelled = (reason) =>
  show(h("p", { class: "muted" }, `The tool call was cancelled${reason ? `: ${reason}` : ""}.`));
host.oncontextchanged = applyHost;

host
  .connect({ name: "reputation-cards", version: "2.0.0" })
  .then(() => applyHost(host.context))
  .catch((e: unknown) => announce(`Could not reach the chat: ${e instanceof Error ? e.message : String(e)}.`, "error"));
