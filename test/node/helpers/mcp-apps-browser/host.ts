// The host page of test/node/mcp-apps-cards.test.ts, bundled for Chromium: a web chat client's side of
// MCP Apps built as the ext-apps reference host (examples/basic-host/src/implementation.ts) builds it.
// An MCP client (the official SDK's, in the page) calls the tool on the served Worker with the bearer
// credential on every request, reads the tool's ui:// resource, loads the sandbox proxy from the second
// origin with the resource's `_meta.ui.csp` (the proxy's server turns it into the Content-Security-
// Policy), hands the HTML over `ui/notifications/sandbox-resource-ready`, and connects ext-apps'
// AppBridge over PostMessageTransport: the bridge answers ui/initialize and forwards the card's
// tools/call to the server through the same client.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  getToolUiResourceUri,
  type McpUiHostContext,
  type McpUiResourceCsp,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";

export interface OpenCard {
  mcpUrl: string;
  /** the API key or token: sent as `Authorization: Bearer` on every request of the client */
  token: string;
  /** the sandbox proxy's page on the second origin */
  sandboxUrl: string;
  tool: string;
  args: Record<string, unknown>;
  theme: "light" | "dark";
  /** the MCP revision the client speaks: a 2025-11-25 session, or 2026-07-28 (stateless) */
  protocol: "2025-11-25" | "2026-07-28";
}

declare global {
  interface Window {
    /** the tools/call requests the card made through the host, in order */
    calls: { name: string; arguments?: Record<string, unknown> }[];
    openCard(o: OpenCard): Promise<{ csp: McpUiResourceCsp | undefined }>;
    setTheme(theme: "light" | "dark"): Promise<void>;
  }
}

window.calls = [];
let bridge: AppBridge | undefined;
let context: McpUiHostContext = {};

/** The sandbox proxy in an iframe of the second origin; resolves once it says it is ready. */
function loadSandboxProxy(sandboxUrl: string, csp: McpUiResourceCsp | undefined): Promise<HTMLIFrameElement> {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  iframe.title = "MCP App card";
  iframe.style.cssText = "width:560px;height:200px;border:1px solid #888;display:block";
  const url = new URL(sandboxUrl);
  url.searchParams.set("csp", JSON.stringify(csp ?? {}));
  const ready = new Promise<HTMLIFrameElement>((resolve) => {
    const listener = (event: MessageEvent) => {
      if (event.source !== iframe.contentWindow) return;
      if ((event.data as { method?: string })?.method !== "ui/notifications/sandbox-proxy-ready") return;
      window.removeEventListener("message", listener);
      resolve(iframe);
    };
    window.addEventListener("message", listener);
  });
  iframe.src = url.href;
  document.body.append(iframe);
  return ready;
}

window.openCard = async (o) => {
  const client = new Client(
    { name: "cards-test-host", version: "1.0.0" },
    {
      // a host that renders MCP Apps says so (the extension's client capability)
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      versionNegotiation: { mode: o.protocol === "2026-07-28" ? { pin: "2026-07-28" } : "legacy" },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(o.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${o.token}` } },
    }),
  );
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === o.tool);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${o.tool} names no ui:// resource`);
  const resultPromise = client.callTool({ name: o.tool, arguments: o.args });
  const resource = await client.readResource({ uri });
  const content = resource.contents[0] as { mimeType?: string; text?: string; _meta?: { ui?: { csp?: unknown } } };
  if (content?.mimeType !== RESOURCE_MIME_TYPE || typeof content.text !== "string")
    throw new Error(`${uri} is not an MCP App's HTML`);
  const csp = content._meta?.ui?.csp as McpUiResourceCsp | undefined;

  const iframe = await loadSandboxProxy(o.sandboxUrl, csp);
  context = {
    theme: o.theme,
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    platform: "web",
    locale: "en-US",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    containerDimensions: { maxWidth: 560, maxHeight: 2000 },
  };
  const caps = client.getServerCapabilities();
  bridge = new AppBridge(
    client as never,
    { name: "cards-test-host", version: "1.0.0" },
    { serverTools: caps?.tools, serverResources: caps?.resources, logging: {} },
    { hostContext: context },
  );
  // the card reports its height: the iframe follows, as a chat client's does
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.ceil(height) + 2}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge!.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  await bridge.sendSandboxResourceReady({ html: content.text, csp });
  await initialized;
  await bridge.sendToolInput({ arguments: o.args });
  const result = await resultPromise;
  // from here on, every tools/call is one the bridge forwards for the card (through client.request): record it
  const request = client.request.bind(client);
  client.request = ((req: { method: string; params?: unknown }, ...rest: unknown[]) => {
    if (req.method === "tools/call") window.calls.push(structuredClone(req.params) as Window["calls"][number]);
    return (request as (...a: unknown[]) => unknown)(req, ...rest);
  }) as typeof client.request;
  await bridge.sendToolResult(result as never);
  return { csp };
};

window.setTheme = async (theme) => {
  context = { ...context, theme };
  bridge?.setHostContext(context);
};
