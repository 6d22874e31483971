// The web host of test/node/mcp-apps-cards.test.ts on two origins, as the MCP Apps specification (SEP-1865,
// "Sandbox proxy") asks of a web host and the ext-apps reference host (examples/basic-host/serve.ts) serves it:
//   - the host page on http://127.0.0.1:<hostPort> (mcp-apps-browser/host.ts, an MCP client in the page);
//   - the sandbox proxy on http://localhost:<sandboxPort>/sandbox.html (mcp-apps-browser/sandbox.ts), served
//     with the Content-Security-Policy built from the `?csp=` the host took from the resource's `_meta.ui.csp`,
//     which the card's inner iframe inherits;
//   - a report endpoint (POST /csp-report on the host's server) the policy's report-uri names: every
//     violation the browser reports lands in `reports`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { build } from "esbuild";

export interface CspDeclaration {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** A domain list entry that cannot break out of its directive (no quotes, separators or spaces). */
const domains = (list: string[] | undefined) => (list ?? []).filter((d) => !/[;,'"\s]/.test(d)).join(" ");

/**
 * The policy a host builds from a resource's declared domains: the specification's restrictive default
 * (no 'unsafe-eval', no network) widened only by what the resource declares ("Host Behavior": MUST
 * construct CSP headers based on declared domains, MUST NOT allow undeclared domains; frame-src 'none'
 * and base-uri 'self' unless declared; object-src 'none').
 */
export function cardCsp(csp: CspDeclaration, reportUri: string): string {
  const res = domains(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `connect-src ${domains(csp.connectDomains) || "'none'"}`,
    `frame-src ${domains(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${domains(csp.baseUriDomains) || "'self'"}`,
    `report-uri ${reportUri}`,
  ]
    .map((d) => d.trim())
    .join("; ");
}

async function bundle(file: string): Promise<string> {
  const out = await build({
    entryPoints: [path.join(import.meta.dirname, "mcp-apps-browser", file)],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0]!.text;
}

const listen = (server: Server, host: string) =>
  new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => resolve(body));
  });

export interface CardHost {
  /** the host page */
  hostUrl: string;
  hostOrigin: string;
  /** the sandbox proxy's page (second origin) */
  sandboxUrl: string;
  /** what the browser reported to the policy's report-uri, in arrival order */
  reports: Record<string, unknown>[];
  /** the policies the sandbox was served with */
  policies: string[];
  stop(): Promise<void>;
}

export async function startCardHost(): Promise<CardHost> {
  const [hostScript, sandboxScript] = await Promise.all([bundle("host.ts"), bundle("sandbox.ts")]);
  const reports: Record<string, unknown>[] = [];
  const policies: string[] = [];
  const page = (script: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP Apps test host</title></head>` +
    `<body style="margin:0"><script>${script.replace(/<\/script/gi, "<\\/script")}</script></body></html>`;

  const host = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "POST" && req.url === "/csp-report") {
      const body = await readBody(req);
      // report-uri posts {"csp-report": {...}}; the Reporting API an array of {type, body}
      const parsed = JSON.parse(body || "null") as unknown;
      for (const r of Array.isArray(parsed) ? parsed : [parsed]) if (r) reports.push(r as Record<string, unknown>);
      res.writeHead(204).end();
      return;
    }
    if (req.method === "GET" && req.url === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page(hostScript));
      return;
    }
    res.writeHead(404).end();
  });
  const hostPort = await listen(host, "127.0.0.1");
  const hostOrigin = `http://127.0.0.1:${hostPort}`;

  const sandbox = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method !== "GET" || url.pathname !== "/sandbox.html") {
      res.writeHead(404).end();
      return;
    }
    // the policy comes with the page, as a header: the card's HTML cannot loosen it
    const declared = JSON.parse(url.searchParams.get("csp") ?? "{}") as CspDeclaration;
    const policy = cardCsp(declared, `${hostOrigin}/csp-report`);
    policies.push(policy);
    res
      .writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": policy,
        "cache-control": "no-store",
      })
      .end(page(sandboxScript));
  });
  const sandboxPort = await listen(sandbox, "127.0.0.1");

  return {
    hostUrl: `${hostOrigin}/`,
    hostOrigin,
    sandboxUrl: `http://localhost:${sandboxPort}/sandbox.html`,
    reports,
    policies,
    async stop() {
      for (const s of [host, sandbox]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };
}
