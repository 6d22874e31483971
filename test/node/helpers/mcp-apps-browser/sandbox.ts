// The sandbox proxy of the test host (test/node/helpers/mcp-apps-host.ts serves it as /sandbox.html on
// its own origin, under the Content-Security-Policy built from the card's `_meta.ui.csp`): the
// specification's outer iframe (SEP-1865, "Sandbox proxy"), as the ext-apps reference host
// (examples/basic-host/src/sandbox.ts) builds it. It tells the host it is ready, writes the card's HTML
// into an inner iframe of its own origin (which inherits this document's CSP), and relays every other
// message between the host page and the card, checking where each comes from.

const PROXY_READY = "ui/notifications/sandbox-proxy-ready";
const RESOURCE_READY = "ui/notifications/sandbox-resource-ready";

if (window.self === window.top) throw new Error("the sandbox proxy only runs inside the host's iframe");
// the host page's origin: the only one whose messages are taken (the referrer is the embedding page)
const HOST_ORIGIN = new URL(document.referrer).origin;
const OWN_ORIGIN = window.location.origin;

// the inner iframe fills this frame, which the host sizes to the card's reported height
for (const el of [document.documentElement, document.body]) el.style.cssText = "height:100%;margin:0;overflow:hidden";
const inner = document.createElement("iframe");
inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
inner.title = "MCP App";
inner.style.cssText = "width:100%;height:100%;border:none;display:block";
document.body.append(inner);

window.addEventListener("message", (event: MessageEvent) => {
  if (event.source === window.parent) {
    if (event.origin !== HOST_ORIGIN) return;
    const data = event.data as { method?: string; params?: { html?: unknown; sandbox?: unknown } } | null;
    if (data?.method === RESOURCE_READY) {
      const { html, sandbox } = data.params ?? {};
      if (typeof sandbox === "string") inner.setAttribute("sandbox", sandbox);
      if (typeof html === "string") {
        const doc = inner.contentDocument!;
        doc.open();
        doc.write(html);
        doc.close();
      }
      return;
    }
    inner.contentWindow?.postMessage(event.data, "*");
  } else if (event.source === inner.contentWindow) {
    if (event.origin !== OWN_ORIGIN) return;
    window.parent.postMessage(event.data, HOST_ORIGIN);
  }
});

window.parent.postMessage({ jsonrpc: "2.0", method: PROXY_READY, params: {} }, HOST_ORIGIN);
