// MCP Apps (io.modelcontextprotocol/ui): the cards are ui:// resources of mimeType
// text/html;profile=mcp-app, listed and read on both protocol legs, and the tools they belong to name
// them in _meta; a client without the extension gets the same tool results as before (docs/mcp.md).
import { beforeAll, describe, expect, it } from "vitest";
import { APP_CARDS } from "../../src/modules/mcp/apps/cards";
import { createWorld, type World } from "../helpers/seed";
import { connect, connectV2, mintTestKey } from "./helpers";

const MIME = "text/html;profile=mcp-app";
const CARD_OF_TOOL: Record<string, string> = {
  "approval.list-pending": "ui://reputation/response-approval.html",
  "inbox.get": "ui://reputation/response-approval.html",
  "inbox.list": "ui://reputation/inbox-triage.html",
  "score.location": "ui://reputation/location-score.html",
};
const URIS = [
  "ui://reputation/inbox-triage.html",
  "ui://reputation/location-score.html",
  "ui://reputation/response-approval.html",
];

let w: World;
let token = "";

beforeAll(async () => {
  w = await createWorld();
  token = mintTestKey(w.tenantA.id, [
    "read:reviews",
    "read:feedback",
    "read:approvals",
    "read:score",
    "read:locations",
  ]).token;
});

/** The v1 client on a 2025-11-25 session and the v2 client pinned to 2026-07-28: the same calls on both legs. */
const LEGS = [
  ["2025-11-25 session", async () => (await connect({ token })).client],
  ["2026-07-28 stateless", async () => (await connectV2({ token })).client],
] as const;

describe.each(LEGS)("MCP Apps cards on the %s leg", (leg, open) => {
  it("advertises resources and the io.modelcontextprotocol/ui extension", async () => {
    const client = await open();
    const caps = client.getServerCapabilities() as Record<string, any>;
    expect(caps.resources).toEqual({ listChanged: false });
    // the 2026-07-28 leg also declares the tasks extension (docs/mcp.md, Tasks); the 2025-11-25 leg does not
    const tasks = leg.startsWith("2026") ? { "io.modelcontextprotocol/tasks": {} } : {};
    expect(caps.extensions).toEqual({ "io.modelcontextprotocol/ui": {}, ...tasks });
    await client.close();
  });

  it("resources/list names the three cards with the MCP Apps mimeType", async () => {
    const client = await open();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(URIS);
    for (const r of resources) {
      expect(r.mimeType).toBe(MIME);
      expect((r._meta as any).ui).toEqual({ csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true });
    }
    await client.close();
  });

  it("resources/read returns each card's self-contained HTML", async () => {
    const client = await open();
    for (const card of APP_CARDS) {
      const { contents } = await client.readResource({ uri: card.uri });
      expect(contents).toHaveLength(1);
      const [c] = contents as { uri: string; mimeType: string; text: string }[];
      expect(c!.uri).toBe(card.uri);
      expect(c!.mimeType).toBe(MIME);
      expect(c!.text.startsWith("<!doctype html>")).toBe(true);
      expect(c!.text).toContain(`<body data-card="${card.kind}">`);
      expect(c!.text).toContain('aria-live="polite"');
      // the view script is inlined: no script or stylesheet is fetched from anywhere
      expect(c!.text).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|https?:\/\/[^"'\s]*\.js/i);
      expect(c!.text.match(/<\/script>/g)).toHaveLength(1);
      // ...and it is the whole view script (a Text module in the Worker, view-script.generated.txt)
      const script = /<script>([\s\S]*)<\/script>/.exec(c!.text)![1]!;
      expect(script).toContain('name:"reputation-cards"');
      // nothing a strict CSP (no 'unsafe-eval') refuses: no eval, no Function constructor (docs/mcp.md)
      expect(script).not.toMatch(/\beval\b|\bFunction\b/);
      // each card's whole HTML within 150 KB, uncompressed (issue #48)
      expect(new TextEncoder().encode(c!.text).length).toBeLessThanOrEqual(150 * 1024);
    }
    await client.close();
  });

  it("resources/read of an unknown ui:// URI is resource not found", async () => {
    const client = await open();
    const error = await client.readResource({ uri: "ui://reputation/nope.html" }).catch((e: unknown) => e as any);
    // the v1 client shows the JSON-RPC code, the v2 client its ResourceNotFoundError (made from that code)
    expect(error.code === -32002 || error.uri === "ui://reputation/nope.html").toBe(true);
    expect(String(error.message)).toContain("Resource not found");
    await client.close();
  });

  it("the tools of each card name it in _meta.ui.resourceUri and the flat ui/resourceUri; other tools do not", async () => {
    const client = await open();
    const { tools } = await client.listTools();
    const carded = Object.fromEntries(
      tools.filter((t) => t._meta).map((t) => [t.name, (t._meta as any).ui.resourceUri as string]),
    );
    expect(carded).toEqual(CARD_OF_TOOL);
    for (const t of tools.filter((x) => x._meta))
      expect(t._meta).toEqual({ ui: { resourceUri: CARD_OF_TOOL[t.name] }, "ui/resourceUri": CARD_OF_TOOL[t.name] });
    await client.close();
  });

  it("a client without the extension gets the tool's text and structured output, nothing of the card", async () => {
    const client = await open();
    const result = (await client.callTool({ name: "inbox.list", arguments: {} })) as Record<string, any>;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.data).toEqual([]);
    expect(result.content.map((c: { type: string }) => c.type)).toEqual(["text", "text"]);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(JSON.stringify(result)).not.toMatch(/ui:\/\/|<script|mcp-app/);
    await client.close();
  });
});
