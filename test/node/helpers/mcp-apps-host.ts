// The test host of test/node/mcp-apps-cards.test.ts, bundled for Chromium: a chat client's side of MCP
// Apps as the ext-apps SDK's AppBridge implements it. It embeds a card's HTML in a sandboxed iframe
// (scripts only, an opaque origin: no access to this page, its cookies or storage), answers
// ui/initialize with a theme, hands the card a tool result, and records every tools/call the card asks
// for, answering each from window.replies (a queue per tool name).
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

type Result = { content: { type: "text"; text: string }[]; structuredContent?: unknown; isError?: boolean };

declare global {
  interface Window {
    calls: { name: string; arguments?: Record<string, unknown> }[];
    replies: Record<string, Result[]>;
    mountCard(html: string, toolResult: Result, theme: "light" | "dark"): Promise<void>;
  }
}

window.calls = [];
window.replies = {};

const ok = (structured: unknown): Result => ({
  content: [{ type: "text", text: JSON.stringify(structured) }],
  structuredContent: structured,
});

window.mountCard = async (html, toolResult, theme) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "MCP App card";
  iframe.style.cssText = "width:560px;height:200px;border:1px solid #888";
  document.body.append(iframe);
  const bridge = new AppBridge(
    null,
    { name: "test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
    { hostContext: { theme, displayMode: "inline" } },
  );
  bridge.oncalltool = async (params) => {
    window.calls.push({ name: params.name, arguments: params.arguments });
    return (window.replies[params.name]?.shift() ?? ok({})) as never;
  };
  // the card's autoResize reports its height: the iframe follows, as a chat client's would
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.ceil(height) + 2}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolResult(toolResult as never);
};
