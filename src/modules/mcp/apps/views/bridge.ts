// The card's side of MCP Apps (SEP-1865, protocol 2026-01-26): JSON-RPC 2.0 over postMessage with the
// host (window.parent; a web host's sandbox proxy relays). It is what the cards need of ext-apps' App,
// written out: App validates every message with zod, whose JIT probe (`new Function("")`) is an eval a
// host's strict Content-Security-Policy refuses and reports, and zod was most of the 700 KB the cards
// weighed. Nothing here evaluates text as code; messages are plain objects, checked where they are read.

const PROTOCOL_VERSION = "2026-01-26";
/** A host that never answers a request must not leave a button spinning. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface TextBlock {
  type: string;
  text?: string;
}

/** A CallToolResult as the host hands it over (tools/call, ui/notifications/tool-result). */
export interface ToolResult {
  content?: TextBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** The part of the host's context the cards use (McpUiHostContext). */
export interface HostContext {
  theme?: "light" | "dark";
  styles?: { variables?: Record<string, string | undefined> };
  timeZone?: string;
  locale?: string;
}

interface Message {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string };
}

type Pending = { resolve(result: unknown): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> };

export class HostBridge {
  private nextId = 1;
  private readonly pending = new Map<string | number, Pending>();
  private readonly host: Window;
  context: HostContext = {};
  /** ui/notifications/tool-result: the tool's answer this card shows */
  ontoolresult?: (result: ToolResult) => void;
  /** ui/notifications/tool-cancelled */
  ontoolcancelled?: (reason: string) => void;
  /** ui/notifications/host-context-changed, merged into `context` first */
  oncontextchanged?: (context: HostContext) => void;

  constructor(host: Window = window.parent) {
    this.host = host;
    window.addEventListener("message", (event) => {
      // only the host (or its proxy) speaks to the card
      if (event.source !== this.host) return;
      const message = event.data as Message | null;
      if (message && typeof message === "object" && message.jsonrpc === "2.0") this.receive(message);
    });
  }

  private send(message: Message) {
    // the host's origin is not known to the card (a sandbox proxy relays): "*", as the spec's examples send
    this.host.postMessage({ jsonrpc: "2.0", ...message }, "*");
  }

  private receive(m: Message) {
    if (m.method === undefined) {
      const waiting = m.id === undefined ? undefined : this.pending.get(m.id);
      if (!waiting) return;
      this.pending.delete(m.id!);
      clearTimeout(waiting.timer);
      if (m.error) waiting.reject(new Error(m.error.message ?? "The host refused the request"));
      else waiting.resolve(m.result);
      return;
    }
    if (m.id !== undefined) return this.answer(m);
    const params = (m.params ?? {}) as Record<string, unknown>;
    if (m.method === "ui/notifications/tool-result") this.ontoolresult?.(params as ToolResult);
    else if (m.method === "ui/notifications/tool-cancelled")
      this.ontoolcancelled?.(typeof params.reason === "string" ? params.reason : "");
    else if (m.method === "ui/notifications/host-context-changed") {
      this.context = { ...this.context, ...(params as HostContext) };
      this.oncontextchanged?.(this.context);
    }
    // tool-input, tool-input-partial and anything newer: the cards draw from the result alone
  }

  /** Requests the host sends the card: ping and teardown are answered; nothing else is offered. */
  private answer(m: Message) {
    if (m.method === "ping" || m.method === "ui/resource-teardown") this.send({ id: m.id, result: {} });
    else this.send({ id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error("The host did not answer in time"));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.send({ id, method, params });
    });
  }

  /** ui/initialize, then ui/notifications/initialized; from then on the card tells the host its size. */
  async connect(appInfo: { name: string; version: string }): Promise<void> {
    const result = (await this.request("ui/initialize", {
      appInfo,
      appCapabilities: { availableDisplayModes: ["inline"] },
      protocolVersion: PROTOCOL_VERSION,
    })) as { hostContext?: HostContext } | undefined;
    this.context = result?.hostContext ?? {};
    this.send({ method: "ui/notifications/initialized", params: {} });
    this.reportSize();
  }

  /** ui/open-link: the host opens a page in the user's browser (the card's frame cannot open one itself). */
  async openLink(url: string): Promise<void> {
    await this.request("ui/open-link", { url });
  }

  /** tools/call through the host: the host sends it to the server as any call of this user. */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.request("tools/call", { name, arguments: args })) as ToolResult;
  }

  /** ui/notifications/size-changed whenever the document's size changes (the host fits the frame to it). */
  private reportSize() {
    let width = 0;
    let height = 0;
    let queued = false;
    const measure = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const html = document.documentElement;
        const before = html.style.height;
        // the content's own height, not the frame's (which the host set from the last report)
        html.style.height = "max-content";
        const h = Math.ceil(html.getBoundingClientRect().height);
        html.style.height = before;
        const w = Math.ceil(window.innerWidth);
        if (w === width && h === height) return;
        width = w;
        height = h;
        this.send({ method: "ui/notifications/size-changed", params: { width, height } });
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }
}
