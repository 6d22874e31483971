import type { TenantRole } from "../../db/schema";
import type { BrowserAsk, BrowserDecision, BrowserWait, Confirmer } from "../../durable/mcp-sessions";
import { auditStatement } from "../../lib/audit";
import type { ServiceContext } from "../../lib/context";
import { randomToken } from "../../lib/crypto";
import { ApiError, notFound } from "../../lib/errors";
import { baseUrl } from "../../lib/urls";
import { roleAtLeast } from "../identity/access";
import { bindingDigest, CONFIRMATION_TTL_MS, type ConfirmationCaller, confirmationStore } from "./confirmations";
import type { SessionIdentity } from "./identity";

// Confirming in the browser (docs/mcp.md "Confirmation"; issue #45 item 8). A client that cannot show the
// user a form (no form elicitation) gets no code to hand back: the call is refused with a link to the
// console's confirm page, where a signed-in person who may confirm sees what the call will do and confirms
// it. The call's retry (same caller, session, tool and arguments) then finds the confirmed ask and spends
// it, once. The ask is the single-use confirmation of confirmations.ts (the same nonce, digest, expiry and
// Durable Object), marked "browser": it counts only after a person confirmed it on the page.

/** The console's confirm page (src/modules/console/pages/confirm.tsx serves this pattern). */
export const CONFIRM_PAGE_PATTERN = "/app/t/:tenantId/confirm/:confirmationId";

/** A confirm page's address: on the platform's host, where everyone with a role in the tenant signs in. */
export const confirmPageUrl = (env: ConfirmationCaller["env"], tenantId: string, id: string) =>
  `${baseUrl(env)}/app/t/${encodeURIComponent(tenantId)}/confirm/${id}`;

/** Ask ids are the confirmation's nonce: 192 random bits. Anything else is not found. */
const ASK_ID = /^[A-Za-z0-9_-]{32}$/;

/** Who may confirm: the same person as a user's credential (OAuth grant or session); for an API key a manager or tenant_admin. */
export const confirmerOf = (identity: SessionIdentity): Confirmer =>
  identity.credential === "api_key" || !identity.userId ? { minRole: "manager" } : { userId: identity.userId };

/** Who that is, in the sentence the tool result says to the model. */
export const confirmerText = (confirmer: Confirmer) =>
  "userId" in confirmer
    ? "the person signed in to this connection"
    : "a manager or admin of this business (the call was made with an API key)";

const SHOWN_CHARS = 300;
const SHOWN_ARGUMENTS = 20;

/** The call's arguments as the page shows them: text, long values shortened (a CSV is not kept whole). */
export function shownArguments(args: Record<string, unknown>): BrowserAsk["arguments"] {
  return Object.entries(args)
    .filter(([name, value]) => name !== "confirm" && value !== undefined)
    .slice(0, SHOWN_ARGUMENTS)
    .map(([name, value]) => {
      const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
      return {
        name,
        value: text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters in all)` : text,
      };
    });
}

export interface BrowserConfirmation {
  /** the ask's id (its nonce): names the page, confirms nothing by itself */
  id: string;
  url: string;
  expiresAt: string;
  confirmer: Confirmer;
}

/**
 * The gate of a call that needs a confirmation in the browser: `confirmed` when a person confirmed this
 * very call on the confirm page (the ask is spent now: single use), else the open ask to send the user to
 * (the same one while it waits, so repeated calls give the same link).
 */
export async function askInBrowser(
  c: ConfirmationCaller,
  tool: { name: string; title: string },
  args: Record<string, unknown>,
  question: string,
  now = Date.now(),
): Promise<{ confirmed: true } | { confirmed: false; ask: BrowserConfirmation }> {
  const digest = await bindingDigest(c, tool.name, args);
  const { identity } = c;
  const confirmer = confirmerOf(identity);
  const taken = await confirmationStore(c.env, c.tenantId).askInBrowser(
    digest,
    randomToken(24),
    {
      digest,
      expiresAt: now + CONFIRMATION_TTL_MS,
      browser: {
        tool: tool.name,
        title: tool.title,
        question,
        arguments: shownArguments(args),
        via: {
          credential: identity.credential,
          ...(identity.keyId ? { keyId: identity.keyId } : {}),
          ...(identity.userId ? { userId: identity.userId } : {}),
          ...(identity.clientId ? { clientId: identity.clientId } : {}),
        },
        confirmer,
      },
    },
    now,
  );
  if (taken.status === "confirmed") return { confirmed: true };
  return {
    confirmed: false,
    ask: {
      id: taken.nonce,
      url: confirmPageUrl(c.env, c.tenantId, taken.nonce),
      expiresAt: new Date(taken.expiresAt).toISOString(),
      confirmer,
    },
  };
}

/**
 * Waits (at most `timeoutMs`) for the person's decision on the page (a call on a URL-mode elicitation
 * session); "ended" when the session is closed first.
 */
export const awaitBrowserDecision = (
  c: ConfirmationCaller,
  id: string,
  sessionId: string,
  timeoutMs: number,
): Promise<BrowserWait> => confirmationStore(c.env, c.tenantId).awaitBrowserDecision(id, sessionId, timeoutMs);

/** Spends ask `id` for this very call: true only if a person confirmed it, unexpired, for these arguments. */
export async function spendBrowserConfirmation(
  c: ConfirmationCaller,
  tool: string,
  args: Record<string, unknown>,
  id: string,
  now = Date.now(),
): Promise<boolean> {
  const digest = await bindingDigest(c, tool, args);
  return (await confirmationStore(c.env, c.tenantId).redeemConfirmation(id, digest, now)) === "ok";
}

// The confirm page's side: one rule for who may see and decide an ask, and the audit of the decision.

/** The signed-in person on the page: their user id and their role in the page's tenant (the console's tenant fence). */
export interface ConfirmingPerson {
  userId: string;
  role: TenantRole;
}

export const mayConfirm = (confirmer: Confirmer, person: ConfirmingPerson) =>
  "userId" in confirmer ? confirmer.userId === person.userId : roleAtLeast(person.role, confirmer.minRole);

export interface AskForPerson {
  state: "open" | "confirmed" | "expired";
  ask: BrowserAsk;
  expiresAt: string;
}

/**
 * The ask `id` of tenant `tenantId` as the person may see it. Not found (404) for an unknown, spent or
 * malformed id, and for another tenant's (each tenant's asks live in its own Durable Object); forbidden
 * (403) for anyone who may not confirm it, before anything about the call is shown.
 */
export async function askForPerson(
  ctx: Pick<ServiceContext, "env" | "tenantId">,
  id: string,
  person: ConfirmingPerson,
  now = Date.now(),
): Promise<AskForPerson> {
  if (!ASK_ID.test(id)) throw notFound("Confirmation");
  const found = await confirmationStore(ctx.env, ctx.tenantId).browserAsk(id, now);
  if (!found) throw notFound("Confirmation");
  if (!mayConfirm(found.ask.confirmer, person))
    throw new ApiError(
      "FORBIDDEN",
      "userId" in found.ask.confirmer
        ? "Only the person whose connection made this request can confirm it. Sign in as that person."
        : "Requests made with an API key are confirmed by a manager or an admin of this business.",
    );
  const state = found.expired ? "expired" : found.ask.confirmedAt ? "confirmed" : "open";
  return { state, ask: found.ask, expiresAt: new Date(found.expiresAt).toISOString() };
}

/**
 * The person's decision on the page, after the same checks as `askForPerson`: confirm lets the call's
 * retry run once; decline deletes the ask. Audited (`mcp.confirmation_confirmed` / `_declined`) with the
 * tool and the credential that asked, never the ask's id.
 */
export async function decideAsPerson(
  ctx: Pick<ServiceContext, "env" | "tenantId" | "db" | "actor" | "meta">,
  id: string,
  person: ConfirmingPerson,
  decision: "confirm" | "decline",
  now = Date.now(),
): Promise<BrowserDecision> {
  const { ask } = await askForPerson(ctx, id, person, now);
  const result = await confirmationStore(ctx.env, ctx.tenantId).decideInBrowser(id, decision, person.userId, now);
  if (result === "confirmed" || result === "declined")
    await auditStatement(
      { db: ctx.db, actor: ctx.actor, meta: ctx.meta },
      {
        tenantId: ctx.tenantId,
        action: `mcp.confirmation_${result}`,
        resourceType: "mcp_tool",
        resourceId: ask.tool,
        metadata: {
          channel: "console",
          tool: ask.tool,
          credential: ask.via.credential,
          ...(ask.via.keyId ? { apiKeyId: ask.via.keyId } : {}),
          ...(ask.via.userId ? { callerUserId: ask.via.userId } : {}),
          ...(ask.via.clientId ? { oauthClientId: ask.via.clientId } : {}),
        },
      },
    );
  return result;
}
