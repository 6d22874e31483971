/** @jsxImportSource hono/jsx */
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import { htmlDocument } from "../../../lib/html";
// build output of scripts/build-browser-code.mjs (not committed; npm install and every wrangler build write them)
import VIEW_SCRIPT from "./view-script.generated.txt";
import VIEW_STYLE from "./view-style.generated.txt";

/*
 * MCP Apps (the official extension io.modelcontextprotocol/ui, SEP-1865): cards a host that supports
 * the extension renders in a sandboxed iframe next to a tool's result. Each card is a `ui://` resource
 * (HTML, mimeType text/html;profile=mcp-app) named by the tools it belongs to (`_meta.ui.resourceUri`).
 * The HTML holds no data: the host hands it the tool's result over postMessage, and its buttons only
 * ask the host to call our tools (tools/call), which keep their scopes and confirmations.
 * The view script (views/*.ts: a small postMessage client of the protocol, no eval, no library) and its
 * stylesheet are built into Text modules (scripts/build-browser-code.mjs); no third-party script, no network.
 */

export { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY };

/** The extension's id, as client and server capabilities name it. */
export const UI_EXTENSION_ID = "io.modelcontextprotocol/ui";

export interface AppCard {
  /** the views' switch: which card the shared script renders */
  kind: "response-approval" | "inbox-triage" | "location-score";
  uri: string;
  name: string;
  title: string;
  description: string;
  /** the tools whose results this card shows (each declares the card in its _meta) */
  tools: readonly string[];
}

export const APP_CARDS: readonly AppCard[] = [
  {
    kind: "response-approval",
    uri: "ui://reputation/response-approval.html",
    name: "response-approval",
    title: "Reply approval card",
    description:
      "A review and its drafted replies, with approve, edit and reject buttons that call the response tools.",
    tools: ["approval.list-pending", "inbox.get"],
  },
  {
    kind: "inbox-triage",
    uri: "ui://reputation/inbox-triage.html",
    name: "inbox-triage",
    title: "Inbox triage card",
    description: "Inbox items with their reply due time, with assign, tag and close buttons that call the inbox tools.",
    tools: ["inbox.list"],
  },
  {
    kind: "location-score",
    uri: "ui://reputation/location-score.html",
    name: "location-score",
    title: "Location score card",
    description: "A location's reputation score with its rating trend, sentiment and the replies due.",
    tools: ["score.location"],
  },
];

/** The card a tool's results are shown in, if any. */
export const cardOfTool = (toolName: string): AppCard | undefined => APP_CARDS.find((c) => c.tools.includes(toolName));

export const cardOfUri = (uri: string): AppCard | undefined => APP_CARDS.find((c) => c.uri === uri);

/**
 * A tool's `_meta` naming its card: `ui.resourceUri` (the spec's key) and the flat `ui/resourceUri`
 * the spec keeps for hosts written against its first draft (the SDK's registerAppTool sets both).
 */
export const toolUiMeta = (toolName: string): Record<string, unknown> | undefined => {
  const card = cardOfTool(toolName);
  return card ? { ui: { resourceUri: card.uri }, [RESOURCE_URI_META_KEY]: card.uri } : undefined;
};

/** The resource's `_meta.ui`: no network at all (empty CSP domain lists), a border around the card. */
const RESOURCE_UI_META = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };

/** The card's whole HTML document: markup shell, the inlined style and the inlined view script. */
export function cardHtml(card: AppCard): string {
  return htmlDocument(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{card.title}</title>
        {/* our own build output (scripts/build-browser-code.mjs): "</script" and "<!--" are escaped there */}
        <style dangerouslySetInnerHTML={{ __html: VIEW_STYLE }} />
      </head>
      <body data-card={card.kind}>
        <main id="card" aria-busy="true">
          <p class="muted">Waiting for the tool result…</p>
        </main>
        <p id="status" role="status" aria-live="polite"></p>
        <script dangerouslySetInnerHTML={{ __html: VIEW_SCRIPT }} />
      </body>
    </html>,
  );
}

/** resources/list entries. */
export const listAppResources = () =>
  APP_CARDS.map((c) => ({
    uri: c.uri,
    name: c.name,
    title: c.title,
    description: c.description,
    mimeType: RESOURCE_MIME_TYPE,
    _meta: { ui: RESOURCE_UI_META },
  }));

/** resources/read of one card, or undefined for a URI that is none. */
export function readAppResource(uri: string) {
  const card = cardOfUri(uri);
  if (!card) return undefined;
  return {
    contents: [{ uri: card.uri, mimeType: RESOURCE_MIME_TYPE, text: cardHtml(card), _meta: { ui: RESOURCE_UI_META } }],
  };
}
