import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import type { McpSessionState, RateState } from "../../durable/mcp-sessions";
import { auditDbFor } from "../../lib/commit";
import { randomToken } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { bearerToken } from "../../middleware/auth";
import { requestMeta } from "../../middleware/service-context";
import { auditToolCall } from "./audit";
import {
  type McpLimits,
  mcpLimits,
  originAllowed,
  SESSION_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSIONS,
  STATELESS_SESSION_PREFIX,
} from "./config";
import { identify } from "./credentials";
import { declaresFormElicitation, declaresUrlElicitation, deliverAnswers, onlyAnswers } from "./elicitation";
import { endpointOf } from "./endpoints";
import type { SessionIdentity } from "./identity";
import { buildSessionServer, negotiateVersion, type SessionElicitation } from "./protocol-2025-11-25";
import { serveStateless } from "./protocol-2026-07-28";
import { principalDigests } from "./session-binding";
import { findSkill, skillAllowed } from "./skills/registry";
import type { CallEnv } from "./skills/run";
import { inSelection, readSelection, TOOLS_HEADER, TOOLSETS_HEADER, type ToolSelection } from "./toolsets";

type C = Context<AppEnv>;

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const EXPOSED = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy";
const ALLOWED_HEADERS = [
  "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  `x-tenant-id, ${TOOLSETS_HEADER}, ${TOOLS_HEADER}`,
].join(", ");

/** An ErrorResponse with the status of its code, and extra headers. */
function fail(
  code: ApiError["code"],
  message: string,
  headers: Record<string, string> = {},
  details?: Record<string, unknown>,
) {
  const err = new ApiError(code, message, details);
  return Response.json(err.toBody(), { status: err.status, headers });
}

const rateHeaders = (r: RateState): Record<string, string> => ({
  "RateLimit-Policy": `"mcp";q=${r.limit};w=${r.windowSeconds}`,
  RateLimit: `"mcp";r=${r.remaining};t=${r.resetSeconds}`,
});

const throttled = (r: RateState, retryAfter = r.resetSeconds, message = "Rate limit exceeded") =>
  fail(
    "RATE_LIMITED",
    message,
    { ...rateHeaders(r), "Retry-After": String(retryAfter) },
    { limit: r.limit, windowSeconds: r.windowSeconds },
  );

/** The endpoint this request came to (/mcp or /mcp/readonly): its tools, its OAuth resource. */
const endpoint = (c: C) => endpointOf(c.req.path);

const unauthenticated = (c: C, message = "Authentication required") =>
  fail("UNAUTHENTICATED", message, {
    "WWW-Authenticate": `Bearer resource_metadata="${endpoint(c).metadataUrl(c.env)}"`,
  });

const sessionStub = (c: C, tenantId: string) => c.env.MCP_SESSIONS.get(c.env.MCP_SESSIONS.idFromName(tenantId));

/** Session ids name the tenant whose Durable Object holds them: `{tenantId}.{random}`. */
const tenantOfSession = (sessionId: string) => {
  const m = /^([a-z0-9]{1,64})\.[A-Za-z0-9_-]{32,}$/.exec(sessionId);
  return m ? m[1]! : null;
};

/** Counts a request that has no tenant yet (no or bad credential, unknown session) against its IP. */
async function hitIp(c: C, limits: McpLimits): Promise<{ allowed: boolean; rate: RateState }> {
  const key = `mcp-ip:${requestMeta(c).ip ?? "unknown"}`;
  const d = await c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(key)).hit(
    limits.rateLimit,
    limits.windowSeconds,
  );
  return {
    allowed: d.allowed,
    rate: {
      limit: limits.rateLimit,
      remaining: d.remaining,
      resetSeconds: d.retryAfter,
      windowSeconds: limits.windowSeconds,
    },
  };
}

function withHeaders(res: Response, headers: Record<string, string>): Response {
  const out = new Response(res.body, res);
  for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  return out;
}

function corsHeaders(origin: string | null): Record<string, string> {
  return origin
    ? { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED, Vary: "Origin" }
    : {};
}

/** {base_url}/mcp and /mcp/readonly: Streamable HTTP. Checks origin, version, session and limits, then serves the JSON-RPC body. */
export async function handleMcp(c: C): Promise<Response> {
  const origin = c.req.header("origin") ?? null;
  if (origin && !originAllowed(origin, c.env)) return fail("FORBIDDEN", `Origin not allowed: ${origin}`);
  const cors = corsHeaders(origin);
  if (c.req.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: {
        ...cors,
        "Access-Control-Allow-Methods": "GET, POST, DELETE",
        "Access-Control-Allow-Headers": ALLOWED_HEADERS,
        "Access-Control-Max-Age": "86400",
      },
    });
  }
  const res = await route(c);
  return withHeaders(res, cors);
}

/** The session leg accepts only the session revisions in MCP-Protocol-Version (a missing one is accepted). */
function sessionVersionProblem(c: C): Response | null {
  const version = c.req.header("mcp-protocol-version");
  if (!version || (SESSION_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return null;
  return fail(
    "VALIDATION_ERROR",
    `Unsupported MCP-Protocol-Version: ${version}`,
    {},
    { supported: SESSION_PROTOCOL_VERSIONS },
  );
}

async function route(c: C): Promise<Response> {
  switch (c.req.method) {
    case "POST":
      return post(c);
    case "DELETE":
      return sessionVersionProblem(c) ?? end(c);
    case "GET":
      return stream(c);
    default:
      return new Response(null, { status: 405, headers: { Allow: "GET, POST, DELETE" } });
  }
}

async function readBody(c: C): Promise<{ body: unknown } | Response> {
  const length = Number(c.req.header("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) return fail("PAYLOAD_TOO_LARGE", "Request body over 4 MB");
  const text = await c.req.text();
  if (text.length > MAX_BODY_BYTES) return fail("PAYLOAD_TOO_LARGE", "Request body over 4 MB");
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return fail("VALIDATION_ERROR", "Body is not JSON", {}, { issues: [{ path: "body", message: "Malformed JSON" }] });
  }
}

async function post(c: C): Promise<Response> {
  const limits = mcpLimits(c.env);
  // the tools this request is served (endpoint, X-MCP-Toolsets, X-MCP-Tools)
  const selection = readSelection(new URL(c.req.url), c.req.raw.headers, endpoint(c).readOnly);
  const read = await readBody(c);
  if (read instanceof Response) return read;
  // 2026-07-28 requests carry the per-request _meta envelope; everything else is the session leg.
  // A bad selection there is -32602 on tools/list and tools/call (usableSelection): a 2026-07-28 client
  // reads an HTTP 400 to server/discover as "not a 2026-07-28 server" and would hide the reason.
  if (!(await isLegacyRequest(c.req.raw, read.body))) return stateless(c, read.body, limits, selection);
  // 2025-xx: 400 before any session opens, so the client's connect fails with the reason
  if (selection.problem) return fail("VALIDATION_ERROR", selection.problem.message, {}, selection.problem.details);
  const versionProblem = sessionVersionProblem(c);
  if (versionProblem) return versionProblem;
  const messages = (Array.isArray(read.body) ? read.body : [read.body]) as JSONRPCMessage[];
  const init = messages.find((m) => isInitializeRequest(m));
  if (init) return initialize(c, messages, init.params.protocolVersion, limits, selection);

  const on = await onSession(c, limits, "Mcp-Session-Id header required (initialize first)", messages);
  if (on instanceof Response) return on;
  const { sessionId, identity, session, rate } = on;
  const stepUp = await insufficientScope(c, identity, sessionId, messages, selection);
  if (stepUp) return withHeaders(stepUp, rateHeaders(rate));
  if (onlyAnswers(messages)) {
    // the client answering elicitation/create: to the waiting call, through the session's Durable Object.
    // The gate made sure it carries the session's own credential: a session id alone approves nothing
    const taken = await deliverAnswers(c.env, sessionId, identity, messages);
    const res = taken
      ? new Response(null, { status: 202 })
      : fail(
          "VALIDATION_ERROR",
          "No question of this session is waiting for this answer: an answer counts once, from the session and credential it was asked of, before it times out",
        );
    return withHeaders(res, { ...rateHeaders(rate), "Mcp-Session-Id": sessionId });
  }
  const elicitation =
    session.elicitation || session.urlElicitation
      ? { protocolVersion: session.protocolVersion, form: Boolean(session.elicitation) }
      : undefined;
  const res = await serve(c, messages, {
    sessionId,
    identity,
    limits,
    selection,
    elicitation,
    protocolVersion: session.protocolVersion,
  });
  return withHeaders(res, { ...rateHeaders(rate), "Mcp-Session-Id": sessionId });
}

/** A request that passed the session gate: its caller, verified now, and the session it belongs to. */
interface OnSession {
  sessionId: string;
  identity: SessionIdentity;
  session: McpSessionState;
  rate: RateState;
}

/** 404 for a session that does not exist, or is not this caller's: the same answer, counted against the IP. */
async function noSuchSession(c: C, limits: McpLimits): Promise<Response> {
  const ip = await hitIp(c, limits);
  if (!ip.allowed) return throttled(ip.rate);
  return fail("NOT_FOUND", "Session not found or expired: initialize a new session");
}

/**
 * Who is asking, for a request on a session: the credential it carries, verified now through the same
 * authenticators as initialize (a revoked key or token, a deactivated user stop at once), resolved in the
 * session's tenant, with the keyed hashes of its principal binding. No credential, or one that does not
 * verify: 401. A valid credential that cannot act in the session's tenant: 404 (it is not the session's).
 */
async function sessionCaller(
  c: C,
  limits: McpLimits,
): Promise<{ identity: SessionIdentity; principals: string[] } | Response> {
  const token = bearerToken(c);
  const tenantId = tenantOfSession(c.req.header("mcp-session-id") ?? "");
  let identity: SessionIdentity | null;
  try {
    identity = token ? await identify(token, tenantId, c.env, c.var.control, endpoint(c).resource(c.env)) : null;
  } catch (e) {
    if (e instanceof ApiError && e.code === "FORBIDDEN") return noSuchSession(c, limits);
    throw e;
  }
  if (!identity) {
    const ip = await hitIp(c, limits);
    if (!ip.allowed) return throttled(ip.rate);
    return unauthenticated(
      c,
      token
        ? "Invalid or expired credential"
        : "Authentication required: every request on a session carries the credential that opened it",
    );
  }
  return { identity, principals: await principalDigests(c.env, identity) };
}

/**
 * The gate of every request on a 2025-xx session (every method after initialize, the answers to
 * elicitation/create, GET): the caller's credential (sessionCaller) and then the session, found only if
 * it is this principal's. Anyone else's request leaves it as it was (not counted, not refreshed, not
 * closed) and is answered as if it did not exist. The request counts in the tenant's window.
 */
async function onSession(
  c: C,
  limits: McpLimits,
  noId: string,
  /** the request's messages (a throttled tools/call is audited) */
  messages: JSONRPCMessage[] = [],
): Promise<OnSession | Response> {
  const caller = await sessionCaller(c, limits);
  if (caller instanceof Response) return caller;
  const sessionId = c.req.header("mcp-session-id");
  if (!sessionId) return fail("VALIDATION_ERROR", noId);
  const tenantId = tenantOfSession(sessionId);
  const used = tenantId
    ? await sessionStub(c, tenantId).use(sessionId, caller.principals, limits)
    : ({ status: "unknown" } as const);
  if (used.status === "unknown") return noSuchSession(c, limits);
  if (used.status === "rate_limited") {
    await auditThrottled(c, caller.identity, sessionId, messages);
    return throttled(used.rate);
  }
  return { sessionId, identity: caller.identity, session: used.session, rate: used.rate };
}

async function initialize(
  c: C,
  messages: JSONRPCMessage[],
  requested: string,
  limits: McpLimits,
  selection: ToolSelection,
): Promise<Response> {
  if (messages.length > 1) return fail("VALIDATION_ERROR", "initialize must be sent alone");
  const token = bearerToken(c);
  const identity = token ? await identifyOrForbidden(c, token) : null;
  if (identity instanceof Response) return identity;
  if (!identity) {
    const ip = await hitIp(c, limits);
    if (!ip.allowed) return throttled(ip.rate);
    return unauthenticated(c, token ? "Invalid or expired credential" : "Authentication required");
  }
  const sessionId = `${identity.tenantId}.${randomToken(24)}`;
  const protocolVersion = negotiateVersion(requested);
  const capabilities = (messages[0] as { params?: { capabilities?: unknown } }).params?.capabilities;
  const opened = await sessionStub(c, identity.tenantId).open(
    {
      id: sessionId,
      principal: (await principalDigests(c.env, identity))[0]!,
      protocolVersion,
      elicitation: declaresFormElicitation(capabilities, protocolVersion),
      urlElicitation: declaresUrlElicitation(capabilities, protocolVersion),
    },
    limits,
  );
  if (opened.status === "rate_limited") return throttled(opened.rate);
  if (opened.status === "too_many_sessions") {
    return throttled(
      opened.rate,
      opened.retryAfter,
      `At most ${limits.maxSessions} concurrent MCP sessions per tenant; end one (DELETE /mcp) or wait for one to expire`,
    );
  }
  const res = await serve(c, messages, { sessionId, identity, limits, selection, protocolVersion });
  return withHeaders(res, { ...rateHeaders(opened.rate), "Mcp-Session-Id": sessionId });
}

async function identifyOrForbidden(c: C, token: string): Promise<SessionIdentity | null | Response> {
  try {
    const tenant = c.req.header("x-tenant-id")?.trim() || null;
    return await identify(token, tenant, c.env, c.var.control, endpoint(c).resource(c.env));
  } catch (e) {
    if (e instanceof ApiError && e.code === "FORBIDDEN") return fail("FORBIDDEN", e.message);
    throw e;
  }
}

/**
 * Step-up (MCP 2025-11-25 scope challenge): an OAuth caller calling a tool its grant's scopes do not
 * cover gets 403 insufficient_scope naming the scope, so the client can ask the user for just that
 * (the consent page then offers only the new scope). Other credentials cannot step up: their call
 * gets the usual tool error.
 */
async function insufficientScope(
  c: C,
  identity: SessionIdentity,
  sessionId: string,
  messages: unknown[],
  selection: ToolSelection,
): Promise<Response | null> {
  if (identity.credential !== "oauth") return null;
  for (const m of messages) {
    if (!isJSONRPCRequest(m as JSONRPCMessage) || (m as { method: string }).method !== "tools/call") continue;
    const params = (m as { params?: { name?: string; arguments?: unknown } }).params ?? {};
    const skill = findSkill(String(params.name));
    // a tool outside the selection is unknown here (callTool says so), not a reason to ask for more scopes
    if (!skill || !inSelection(skill, selection)) continue;
    if (!skill.scopes || skill.agencyOnly || skillAllowed(skill, identity)) continue;
    const scope = skill.scopes[0]!;
    await auditToolCall(await auditDbFor(c.env, identity.tenantId), c.env, identity, requestMeta(c), {
      tool: skill.name,
      tenantId: identity.tenantId,
      sessionId,
      input: params.arguments ?? {},
      outcome: "forbidden",
      error: `insufficient_scope ${scope}`,
    });
    const metadata = endpoint(c).metadataUrl(c.env);
    const challenge =
      `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}", ` +
      `error_description="${skill.name} needs ${scope}"`;
    return fail(
      "FORBIDDEN",
      `${skill.name} needs the scope ${scope}, which this app was not granted`,
      { "WWW-Authenticate": challenge },
      { scope },
    );
  }
  return null;
}

async function auditThrottled(c: C, identity: SessionIdentity, sessionId: string, messages: JSONRPCMessage[]) {
  const calls = messages.filter((m) => isJSONRPCRequest(m) && m.method === "tools/call");
  for (const m of calls) {
    const params = (m as { params?: { name?: string; arguments?: unknown } }).params ?? {};
    await auditToolCall(await auditDbFor(c.env, identity.tenantId), c.env, identity, requestMeta(c), {
      tool: String(params.name ?? "unknown"),
      tenantId: identity.tenantId,
      sessionId,
      input: params.arguments ?? {},
      outcome: "throttled",
    });
  }
}

type Served = {
  sessionId: string;
  identity: SessionIdentity;
  limits: McpLimits;
  selection: ToolSelection;
  /** the revision the request speaks (the session's, or 2026-07-28) */
  protocolVersion: string;
  /** the session's client declared elicitation: form, or URL mode only (and its revision) */
  elicitation?: SessionElicitation;
};

/** A tools/call of a tool that may ask the user to confirm: answered on an SSE stream in an elicitation session. */
const mayConfirm = (messages: JSONRPCMessage[]) =>
  messages.some(
    (m) =>
      isJSONRPCRequest(m) &&
      m.method === "tools/call" &&
      Boolean(findSkill(String((m.params as { name?: unknown } | undefined)?.name))?.confirm),
  );

const callEnv = (c: C, s: Served): CallEnv => ({
  env: c.env,
  control: c.var.control,
  identity: s.identity,
  sessionId: s.sessionId,
  meta: requestMeta(c),
  limits: s.limits,
  defer: (work) => c.executionCtx.waitUntil(work),
  selection: s.selection,
  protocolVersion: s.protocolVersion,
});

/**
 * A 2026-07-28 request: no initialize and no session. The credential is checked on every request
 * and the request counts in the tenant's window (the same Durable Object as the sessions).
 */
async function stateless(c: C, body: unknown, limits: McpLimits, selection: ToolSelection): Promise<Response> {
  const token = bearerToken(c);
  const identity = token ? await identifyOrForbidden(c, token) : null;
  if (identity instanceof Response) return identity;
  if (!identity) {
    const ip = await hitIp(c, limits);
    if (!ip.allowed) return throttled(ip.rate);
    return unauthenticated(c, token ? "Invalid or expired credential" : "Authentication required");
  }
  const sessionId = `${STATELESS_SESSION_PREFIX}${requestMeta(c).requestId}`;
  const hit = await sessionStub(c, identity.tenantId).hit(limits);
  if (!hit.allowed) {
    await auditThrottled(c, identity, sessionId, [body as JSONRPCMessage]);
    return throttled(hit.state);
  }
  const stepUp = await insufficientScope(c, identity, sessionId, [body], selection);
  if (stepUp) return withHeaders(stepUp, rateHeaders(hit.state));
  const res = await serveStateless(
    c.req.raw,
    body,
    callEnv(c, { sessionId, identity, limits, selection, protocolVersion: STATELESS_PROTOCOL_VERSIONS[0] }),
  );
  return withHeaders(res, rateHeaders(hit.state));
}

/** Serves the messages with a fresh SDK server and a stateless transport (the session is ours). */
async function serve(c: C, messages: JSONRPCMessage[], s: Served) {
  const parsedBody = messages.length === 1 ? messages[0] : messages;
  if (s.elicitation && mayConfirm(messages)) {
    // an SSE stream, so the call can send elicitation/create before its result; the stream (and with
    // it this server) ends after the result, so the server is not closed here
    const server = buildSessionServer(callEnv(c, s), s.elicitation);
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: false });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody });
  }
  const server = buildSessionServer(callEnv(c, s));
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw, { parsedBody });
  } finally {
    await server.close();
  }
}

/** GET /mcp: there is no standalone SSE stream (the server's only requests go on a tools/call's stream), so 405, once the caller passed the session gate. */
async function stream(c: C): Promise<Response> {
  const limits = mcpLimits(c.env);
  const notOffered = (headers: Record<string, string> = {}) =>
    new Response(null, { status: 405, headers: { Allow: "POST, DELETE", ...headers } });
  if (!c.req.header("mcp-session-id")) {
    const caller = await sessionCaller(c, limits);
    return caller instanceof Response ? caller : notOffered();
  }
  const on = await onSession(c, limits, "Mcp-Session-Id header required");
  return on instanceof Response ? on : notOffered(rateHeaders(on.rate));
}

/** DELETE /mcp: ends the session, at the request of its own principal only (anyone else: 404, nothing changes). */
async function end(c: C): Promise<Response> {
  const limits = mcpLimits(c.env);
  const caller = await sessionCaller(c, limits);
  if (caller instanceof Response) return caller;
  const sessionId = c.req.header("mcp-session-id");
  if (!sessionId) return fail("VALIDATION_ERROR", "Mcp-Session-Id header required");
  const tenantId = tenantOfSession(sessionId);
  const closed = tenantId
    ? await sessionStub(c, tenantId).close(sessionId, caller.principals, limits.idleTtlMs)
    : false;
  return closed ? new Response(null, { status: 204 }) : noSuchSession(c, limits);
}
