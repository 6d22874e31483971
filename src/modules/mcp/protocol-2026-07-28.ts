import { z } from "@hono/zod-openapi";
import {
  createMcpHandler,
  inputRequired,
  inputResponse,
  ResourceNotFoundError,
  Server,
} from "@modelcontextprotocol/server";
import { listAppResources, readAppResource } from "./apps/cards";
import { declaresFormElicitation, declaresUrlElicitation } from "./elicitation";
import { CAPABILITIES, INSTRUCTIONS, listedTools, serverInfo, TOOLS_TTL_MS } from "./server";
import { type CallEnv, type Confirmation, callTool } from "./skills/run";
import { cancelTask, declaresTasks, getTask, requireTasks, TASKS_EXTENSION, updateTask } from "./tasks";

const CONFIRM_KEY = "confirm";

/**
 * The 2026-07-28 (stateless) leg: a v2 SDK server for one request, bound to the caller resolved
 * from this request's credential. The SDK validates the per-request `_meta` envelope, the
 * MCP-Protocol-Version / Mcp-Method / Mcp-Name headers, answers `server/discover`, and stamps
 * `resultType`; we add the cache hints and the tools.
 * A confirmation a skill asks for rides the multi-round-trip flow: the first call answers
 * `input_required` with a form elicitation, the client retries with the user's answer. A client
 * without form elicitation is sent to the console's confirm page (skills/run.ts browserGate): with an
 * input_required URL elicitation if it declared URL mode, else with the refusal naming the link.
 */
export function buildStatelessServer(call: CallEnv): Server {
  const server = new Server(serverInfo(call.env), {
    // the tasks extension (SEP-2663): long jobs may answer a task handle; tasks.ts
    capabilities: { ...CAPABILITIES, extensions: { ...CAPABILITIES.extensions, [TASKS_EXTENSION]: {} } },
    instructions: INSTRUCTIONS,
    cacheHints: {
      "tools/list": { ttlMs: TOOLS_TTL_MS, cacheScope: "private" },
      "server/discover": { ttlMs: TOOLS_TTL_MS, cacheScope: "public" },
      // the cards are the same for everyone and change only with a deployment
      "resources/list": { ttlMs: TOOLS_TTL_MS, cacheScope: "public" },
      "resources/read": { ttlMs: TOOLS_TTL_MS, cacheScope: "public" },
    },
  });
  server.setRequestHandler("tools/list", () => ({ tools: listedTools(call) }));
  // the MCP Apps cards (apps/cards.ts): static HTML, the data comes from the tool results
  server.setRequestHandler("resources/list", () => ({ resources: listAppResources() }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", (req) => {
    const read = readAppResource(req.params.uri);
    if (!read) throw new ResourceNotFoundError(req.params.uri);
    return read;
  });
  server.setRequestHandler("tools/call", async (req, ctx) => {
    // the SDK types the envelope as {} (a known gap); the key is the spec's
    const envelope = ctx.mcpReq.envelope as { "io.modelcontextprotocol/clientCapabilities"?: unknown } | undefined;
    // a form to show the user: `{}` or `{form}`; a client that names only `url` confirms in the browser
    const declared = envelope?.["io.modelcontextprotocol/clientCapabilities"];
    const canElicit = declaresFormElicitation(declared, "2026-07-28");
    // no form but URL mode: sent to the console's confirm page with an input_required URL elicitation
    const canSendToPage = !canElicit && declaresUrlElicitation(declared, "2026-07-28");
    // what the client brought back from an earlier ask; run.ts checks the state against the nonce it issued
    const returned = ctx.mcpReq.requestState<unknown>();
    const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
    const confirmation: Confirmation = {
      canAsk: canElicit,
      returned:
        returned !== undefined && answer.kind === "elicit"
          ? {
              state: returned,
              // a form counts with its box ticked; a URL ask's accept says only that the user is done on the page
              answer:
                answer.action === "accept" && (canSendToPage || answer.content?.confirm === true)
                  ? "accepted"
                  : "declined",
            }
          : undefined,
      ask: (message: string, state: string) =>
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
      ...(canSendToPage
        ? {
            askUrl: (message: string, url: string, state: string) =>
              inputRequired({
                requestState: state,
                inputRequests: { [CONFIRM_KEY]: inputRequired.elicitUrl({ message, url }) },
              }),
          }
        : {}),
    };
    const withTasks = { ...call, tasks: declaresTasks(ctx.mcpReq.envelope) };
    return (await callTool(req.params.name, req.params.arguments, withTasks, confirmation)) as never;
  });
  registerTaskMethods(server, call);
  return server;
}

/** Serves one 2026-07-28 request (already authenticated) with a per-request handler. */
export function serveStateless(request: Request, parsedBody: unknown, call: CallEnv): Promise<Response> {
  const handler = createMcpHandler(() => buildStatelessServer(call), { legacy: "reject" });
  return handler.fetch(request, { parsedBody });
}

const TaskParams = z.looseObject({ taskId: z.string() });

/**
 * tasks/get, tasks/update and tasks/cancel of the tasks extension (tasks.ts). The SDK serves them on
 * 2026-07-28 only when registered with their params schema; tasks/result and tasks/list, which this
 * revision removed, stay -32601.
 */
function registerTaskMethods(server: Server, call: CallEnv) {
  const methods = { "tasks/get": getTask, "tasks/cancel": cancelTask, "tasks/update": updateTask } as const;
  for (const [method, run] of Object.entries(methods)) {
    server.setRequestHandler(
      method as never,
      { params: TaskParams } as never,
      (async (params: { taskId: string }, ctx: { mcpReq: { envelope?: unknown } }) => {
        requireTasks(ctx.mcpReq.envelope);
        return run(call, params.taskId);
      }) as never,
    );
  }
}
