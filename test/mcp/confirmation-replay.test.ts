import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { authorizeWithConsent, MemoryOAuthClient } from "../oauth/helpers";
import { confirmationLink, confirmInBrowser, connect, statelessCall } from "./helpers";

let w: World;
let key = "";

beforeAll(async () => {
  w = await createWorld();
  key = (
    await w.as("tenantAdmin").post("/v1/api-keys", { name: "writer", scopes: ["read:contacts", "write:contacts"] })
  ).body.key;
});

const newContact = async (email: string) => (await w.as("manager").post("/v1/contacts", { email })).body.id as string;
const suppressed = async (id: string) =>
  (await db().select().from(contacts).where(eq(contacts.id, id)).get())!.isSuppressed;
const unsuppress = (id: string) => db().update(contacts).set({ isSuppressed: false }).where(eq(contacts.id, id));

const ELICIT = { elicitation: { form: {} } };
const YES = { confirm: { action: "accept", content: { confirm: true } } };
const suppress = (
  token: string,
  contactId: string,
  o: { capabilities?: object; extra?: Record<string, unknown>; confirm?: unknown } = {},
) =>
  statelessCall(
    token,
    "contact.suppress",
    { contactId, reason: "asked", ...(o.confirm !== undefined ? { confirm: o.confirm } : {}) },
    o,
  ).then((r) => r.result);

describe("confirmations are single-use, bound to the caller, and never made up", () => {
  it("2026-07-28 elicitation: an accepted requestState cannot be replayed", async () => {
    const id = await newContact("replay@example.com");
    const asked = await suppress(key, id, { capabilities: ELICIT });
    expect(asked.resultType).toBe("input_required");
    const done = await suppress(key, id, {
      capabilities: ELICIT,
      extra: { inputResponses: YES, requestState: asked.requestState },
    });
    expect(done.structuredContent).toMatchObject({ id, isSuppressed: true });

    await unsuppress(id);
    const replayed = await suppress(key, id, {
      capabilities: ELICIT,
      extra: { inputResponses: YES, requestState: asked.requestState },
    });
    expect(replayed.resultType).toBe("input_required");
    expect(replayed.requestState).not.toBe(asked.requestState);
    expect(await suppressed(id)).toBe(false);
  });

  it("another OAuth client of the same user cannot use a confirmation asked of the first", async () => {
    const who = { email: w.users.tenantUser.email, tenantId: w.tenantA.id };
    const first = await authorizeWithConsent(new MemoryOAuthClient("first app"), "read:contacts write:contacts", who);
    const second = await authorizeWithConsent(new MemoryOAuthClient("second app"), "read:contacts write:contacts", who);
    const id = await newContact("twoapps@example.com");
    const asked = await suppress(first, id, { capabilities: ELICIT });
    expect(asked.resultType).toBe("input_required");
    const stolen = await suppress(second, id, {
      capabilities: ELICIT,
      extra: { inputResponses: YES, requestState: asked.requestState },
    });
    expect(stolen.resultType).toBe("input_required");
    expect(await suppressed(id)).toBe(false);
  });

  it("a made-up requestState is asked again", async () => {
    const id = await newContact("madeup-state@example.com");
    const forged = await suppress(key, id, {
      capabilities: ELICIT,
      extra: { inputResponses: YES, requestState: "mc1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.AAAA" },
    });
    expect(forged.resultType).toBe("input_required");
    expect(await suppressed(id)).toBe(false);
  });

  it("without elicitation a made-up confirm: true is refused; a browser confirmation works once, for these arguments only", async () => {
    const id = await newContact("madeup@example.com");
    const made = await suppress(key, id, { confirm: true });
    expect(made.isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
    const body = JSON.parse(made.content[0].text);
    const link = body.confirmation.url as string;
    expect(body.error).toContain(link);
    expect(Date.parse(body.confirmation.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    await confirmInBrowser(link);

    const other = await newContact("madeup-other@example.com");
    expect((await suppress(key, other)).isError).toBe(true);
    expect(await suppressed(other)).toBe(false);

    const done = await suppress(key, id);
    expect(done.structuredContent).toMatchObject({ id, isSuppressed: true });
    await unsuppress(id);
    const replayed = await suppress(key, id);
    expect(replayed.isError).toBe(true);
    expect(confirmationLink(replayed)).not.toBe(link);
    expect(await suppressed(id)).toBe(false);
  });

  it("2025 session: confirm: true is refused; the session's own confirmation works; one asked in another session does not", async () => {
    const id = await newContact("session-code@example.com");
    const { client } = await connect({ token: key });
    const { client: otherSession } = await connect({ token: key });
    const made = await client.callTool({
      name: "contact.suppress",
      arguments: { contactId: id, reason: "asked", confirm: true },
    });
    expect(made.isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
    await confirmInBrowser(confirmationLink(made)!);
    const elsewhere = await otherSession.callTool({
      name: "contact.suppress",
      arguments: { contactId: id, reason: "asked" },
    });
    expect(elsewhere.isError).toBe(true);
    expect(await suppressed(id)).toBe(false);

    const done = await client.callTool({ name: "contact.suppress", arguments: { contactId: id, reason: "asked" } });
    expect(done.isError).toBeFalsy();
    expect(await suppressed(id)).toBe(true);
  });

  it("a confirmation expires after ten minutes (the Durable Object's clock, passed in)", async () => {
    const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(`expiry-${Date.now()}`));
    const now = Date.now();
    await stub.issueConfirmation("n1", { digest: "d", expiresAt: now + 10 * 60_000 }, now);
    await stub.issueConfirmation("n2", { digest: "d", expiresAt: now + 10 * 60_000 }, now);
    expect(await stub.redeemConfirmation("n1", "d", now + 10 * 60_000 + 1)).toBe("expired");
    expect(await stub.redeemConfirmation("n2", "other", now)).toBe("mismatch");
    expect(await stub.redeemConfirmation("n2", "d", now)).toBe("unknown");
    // an ask made in the browser counts only once a person confirmed it there
    const browser = {
      tool: "contact.suppress",
      title: "Suppress",
      question: "?",
      arguments: [],
      via: { credential: "api_key" as const, keyId: "k" },
      confirmer: { minRole: "manager" as const },
    };
    await stub.issueConfirmation("n3", { digest: "d", expiresAt: now + 10 * 60_000, browser }, now);
    expect(await stub.redeemConfirmation("n3", "d", now)).toBe("unconfirmed");
    await stub.issueConfirmation("n4", { digest: "d", expiresAt: now + 10 * 60_000, browser }, now);
    expect(await stub.decideInBrowser("n4", "confirm", "u1", now)).toBe("confirmed");
    expect(await stub.decideInBrowser("n4", "confirm", "u1", now)).toBe("already_confirmed");
    expect(await stub.redeemConfirmation("n4", "d", now)).toBe("ok");
  });
});
