import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitationAnswer, ElicitationOutcome } from "../../durable/mcp-sessions";
import type { Env } from "../../env";
import { randomToken } from "../../lib/crypto";
import { principalBinding, type SessionIdentity } from "./identity";

// Elicitation on 2025-xx sessions (docs/mcp.md, "Elicitation on 2025-11-25 sessions"): the question
// goes out as elicitation/create on the SSE stream of the tools/call POST; the client's answer comes
// back as a JSON-RPC response on a new POST, maybe to another isolate. The tenant's session Durable
// Object (the one that holds the session) brokers it to the waiting call.

/** The form a confirmation asks for: one box to tick (the same as on the 2026-07-28 leg). */
export const CONFIRM_FORM = {
  type: "object",
  properties: { confirm: { type: "boolean", title: "Confirm", description: "Tick to go ahead" } },
  required: ["confirm"],
} as const;

/** Elicitation ids: 192 random bits, so an answer cannot be aimed at a question it did not see. */
const ELICITATION_ID = /^elicit\.[A-Za-z0-9_-]{32}$/;

/**
 * Whether a session's client can be asked with a form: it declared `elicitation` in initialize, on a
 * revision that has it (2025-06-18 and later). `{}` means form mode (2025-11-25 backwards compatibility);
 * a client that names modes must name `form` (url-only clients are not sent forms).
 */
export function declaresFormElicitation(capabilities: unknown, protocolVersion: string): boolean {
  if (protocolVersion < "2025-06-18") return false;
  const modes = (capabilities as { elicitation?: { form?: unknown; url?: unknown } } | undefined)?.elicitation;
  if (!modes || typeof modes !== "object") return false;
  return Boolean(modes.form) || (modes.form === undefined && modes.url === undefined);
}

/**
 * Whether a session's client can be sent to a page (URL-mode elicitation, 2025-11-25): it names `url`
 * among its elicitation modes. Used only when it cannot be shown a form (declaresFormElicitation).
 */
export function declaresUrlElicitation(capabilities: unknown, protocolVersion: string): boolean {
  if (protocolVersion < "2025-11-25") return false;
  const modes = (capabilities as { elicitation?: { url?: unknown } } | undefined)?.elicitation;
  return Boolean(modes && typeof modes === "object" && modes.url);
}

/** Who may answer: the principal the session is bound to (identity.ts), never the session id alone. */
const callerKey = principalBinding;

/** The Durable Object holding the session: the session id names its tenant (http.ts). */
const sessions = (env: Env, identity: SessionIdentity) =>
  env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(identity.tenantId));

export interface SessionAsk {
  env: Env;
  identity: SessionIdentity;
  sessionId: string;
  protocolVersion: string;
  timeoutMs: number;
  /** writes a message on the tools/call's SSE stream */
  send(message: JSONRPCMessage): Promise<void>;
}

/** A page to send the user to (URL mode): the console's confirm page and its ask's id. */
export interface UrlAsk {
  url: string;
  elicitationId: string;
}

/**
 * Asks the user `message` with a confirmation form, or sends them to a page (`page`, URL mode), and waits
 * (at most `timeoutMs`) for the client's answer. In URL mode `accept` says only that the user agreed to
 * open the page; what they decide there reaches the call through the confirmation (confirm-in-browser.ts).
 */
export async function askUser(a: SessionAsk, message: string, page?: UrlAsk): Promise<ElicitationOutcome> {
  const id = `elicit.${randomToken(24)}`;
  const store = sessions(a.env, a.identity);
  // recorded before it is sent, so an answer can never arrive ahead of its record
  await store.openElicitation(id, {
    sessionId: a.sessionId,
    caller: callerKey(a.identity),
    expiresAt: Date.now() + a.timeoutMs,
  });
  await a.send({
    jsonrpc: "2.0",
    id,
    method: "elicitation/create",
    // `mode` is 2025-11-25; 2025-06-18 clients know only forms, sent without it
    params: page
      ? { mode: "url", message, url: page.url, elicitationId: page.elicitationId }
      : { ...(a.protocolVersion >= "2025-11-25" ? { mode: "form" } : {}), message, requestedSchema: CONFIRM_FORM },
  });
  return store.awaitElicitation(id, a.timeoutMs);
}

/** notifications/elicitation/complete: the out-of-band interaction of a URL-mode ask is done (2025-11-25). */
export const notifyCompleted = (a: Pick<SessionAsk, "send">, elicitationId: string) =>
  a.send({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId } });

/** A POST body of JSON-RPC responses only: the client answering the server's requests. */
export const onlyAnswers = (messages: JSONRPCMessage[]) =>
  messages.length > 0 && messages.every((m) => isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m));

function answerOf(m: JSONRPCMessage): ElicitationAnswer | null {
  if (isJSONRPCErrorResponse(m)) return { action: "error", message: String(m.error.message).slice(0, 200) };
  if (!isJSONRPCResultResponse(m)) return null;
  const { action, content } = m.result as { action?: unknown; content?: unknown };
  if (action !== "accept" && action !== "decline" && action !== "cancel") return null;
  const form = content && typeof content === "object" && !Array.isArray(content) ? content : undefined;
  return { action, ...(form ? { content: form as Record<string, unknown> } : {}) };
}

/**
 * Hands the client's answers to the waiting calls. True only if every message answers an
 * elicitation this session's caller was asked and has not answered yet.
 */
export async function deliverAnswers(
  env: Env,
  sessionId: string,
  identity: SessionIdentity,
  messages: JSONRPCMessage[],
): Promise<boolean> {
  let all = true;
  for (const m of messages) {
    const id = (m as { id?: unknown }).id;
    const answer = answerOf(m);
    const taken =
      typeof id === "string" && ELICITATION_ID.test(id) && answer
        ? await sessions(env, identity).answerElicitation(id, sessionId, callerKey(identity), answer)
        : "refused";
    all &&= taken === "accepted";
  }
  return all;
}
