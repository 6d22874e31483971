// The wrangler `main`: the Worker built over the composition root (src/wiring.ts), and the Durable Object classes.
import { createWorker } from "./worker";
import { WIRING } from "./wiring";

export { McpSessions } from "./durable/mcp-sessions";
export { RateLimiter } from "./durable/rate-limiter";

export default createWorker(WIRING);
