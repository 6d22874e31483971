import { createMcpHandler, inputRequired, inputResponse, Server } from "@modelcontextprotocol/server";
import { INSTRUCTIONS, listedTools, serverInfo, TOOLS_TTL_MS } from "./server";
import { safeEqual, toBase64Url } from "../../lib/crypto";
import { callTool, type CallEnv, type Confirmation } from "./skills/run";

const CONFIRM_KEY = "confirm";

/** JSON with sorted keys, so the same arguments always give the same text. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(",")}]`
    : v && typeof v === "object"
      ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`
      : JSON.stringify(v);

/**
 * The requestState of a confirmation round: an HMAC of who asks, the tool and its arguments. The
 * retry must bring it back for the same call, so a "yes" given to one action cannot be replayed
 * onto other arguments, another tool or another caller (requestState is client-held: signed).
 */
async function confirmationState(call: CallEnv, name: string, args: Record<string, unknown> | undefined): Promise<string> {
  const { confirm: _ignored, ...rest } = args ?? {};
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(call.env.JWT_SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const who = call.identity.keyId ?? call.identity.userId ?? "";
  const payload = canonical(["mcp-confirm", call.identity.tenantId, who, name, rest]);
  return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload))));
}

/**
 * The 2026-07-28 (stateless) leg: a v2 SDK server for one request, bound to the caller resolved
 * from this request's credential. The SDK validates the per-request `_meta` envelope, the
 * MCP-Protocol-Version / Mcp-Method / Mcp-Name headers, answers `server/discover`, and stamps
 * `resultType`; we add the cache hints and the tools.
 * A confirmation a skill asks for rides the multi-round-trip flow: the first call answers
 * `input_required` with a form elicitation, the client retries with the user's answer.
 */
export function buildModernServer(call: CallEnv): Server {
  const server = new Server(serverInfo(call.env), {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    cacheHints: { "tools/list": { ttlMs: TOOLS_TTL_MS, cacheScope: "private" }, "server/discover": { ttlMs: TOOLS_TTL_MS, cacheScope: "public" } },
  });
  server.setRequestHandler("tools/list", () => ({ tools: listedTools(call.identity, call.env) }));
  server.setRequestHandler("tools/call", async (req, ctx) => {
    // the SDK types the envelope as {} (a known gap); the key is the spec's
    const envelope = ctx.mcpReq.envelope as { "io.modelcontextprotocol/clientCapabilities"?: { elicitation?: unknown } } | undefined;
    const canElicit = Boolean(envelope?.["io.modelcontextprotocol/clientCapabilities"]?.elicitation);
    const state = await confirmationState(call, req.params.name, req.params.arguments);
    const returned = ctx.mcpReq.requestState<string>();
    // an answer counts only for the call it was asked about
    const answer = typeof returned === "string" && safeEqual(returned, state) ? inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY) : { kind: "missing" as const };
    const confirmation: Confirmation = {
      canAsk: canElicit,
      answer: answer.kind === "elicit" ? (answer.action === "accept" && answer.content?.confirm === true ? "accepted" : "declined") : undefined,
      ask: (message: string) =>
        inputRequired({
          requestState: state,
          inputRequests: {
            [CONFIRM_KEY]: inputRequired.elicit({
              message,
              requestedSchema: {
                type: "object",
                properties: { confirm: { type: "boolean", title: "Confirm", description: "Tick to go ahead" } },
                required: ["confirm"],
              },
            }),
          },
        }),
    };
    return (await callTool(req.params.name, req.params.arguments, call, confirmation)) as never;
  });
  return server;
}

/** Serves one 2026-07-28 request (already authenticated) with a per-request handler. */
export function serveModern(request: Request, parsedBody: unknown, call: CallEnv): Promise<Response> {
  const handler = createMcpHandler(() => buildModernServer(call), { legacy: "reject" });
  return handler.fetch(request, { parsedBody });
}
