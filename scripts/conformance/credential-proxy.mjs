// The conformance CLI connects without credentials and has no option to send a header, while /mcp
// (rightly) refuses an unauthenticated initialize. This local gateway stands in front of the Worker
// and adds `Authorization: Bearer <key>` to every /mcp request that has none; everything else (method, path, Host,
// Origin, Mcp-* headers, bodies, status, streamed responses) passes through untouched.
import http from "node:http";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
]);

/** Listens on 127.0.0.1:port and forwards to target (an http origin). Resolves to {url, close}. */
export function startCredentialProxy({ port, target, apiKey }) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
    // only the MCP endpoint: the OAuth endpoints (the authorization scenarios) see the client's own headers
    if ((req.url ?? "").startsWith("/mcp") && !headers.authorization) headers.authorization = `Bearer ${apiKey}`;
    const out = http.request(
      // a fresh connection per request: no race with workerd closing an idle keep-alive socket
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent: false },
      (answer) => {
        const back = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
        res.writeHead(answer.statusCode ?? 502, back);
        answer.pipe(res);
      },
    );
    out.on("error", (err) => {
      console.error(`credential proxy: ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(out);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}
