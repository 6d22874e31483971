// The wrangler `main`: the Worker built over the composition root (src/wiring.ts, imported on the
// first invocation: docs/performance.md, Start-up), and the Durable Object classes.
import { createWorker } from "./worker";

export { McpSessions } from "./durable/mcp-sessions";
export { ProviderQuota } from "./durable/provider-quota";
export { RateLimiter } from "./durable/rate-limiter";

export default createWorker(() => import("./wiring").then((m) => m.WIRING));
