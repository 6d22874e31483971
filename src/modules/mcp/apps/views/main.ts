import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps";
import { renderApproval } from "./approval";
import { announce, h, show } from "./dom";
import { renderScore } from "./score";
import { renderTriage } from "./triage";

// The one script of every card (bundled into views.generated.ts by scripts/build-mcp-apps.mjs): the
// ext-apps App speaks to the host over postMessage (ui/initialize, then the tool's result as a
// notification); body[data-card] says which card this document is.

const RENDERERS: Record<string, (app: App, structured: unknown) => void> = {
  "response-approval": renderApproval,
  "inbox-triage": renderTriage,
  "location-score": renderScore,
};

/** The host's theme and style variables; without them the CSS follows prefers-color-scheme. */
function applyHost(ctx: McpUiHostContext | undefined) {
  if (ctx?.theme) applyDocumentTheme(ctx.theme);
  if (ctx?.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}

const app = new App({ name: "reputation-cards", version: "1.0.0" }, {}, { autoResize: true });
const render = RENDERERS[document.body.dataset.card ?? ""];

app.ontoolresult = (result) => {
  if (result.isError || !render) {
    const first = result.content?.[0];
    show(h("p", { class: "error" }, first?.type === "text" ? first.text : "The tool returned an error."));
    return;
  }
  render(app, result.structuredContent);
};
app.onhostcontextchanged = (ctx) => applyHost(ctx);

app
  .connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => applyHost(app.getHostContext()))
  .catch((e: unknown) => announce(`Could not reach the host: ${e instanceof Error ? e.message : String(e)}`, "error"));
