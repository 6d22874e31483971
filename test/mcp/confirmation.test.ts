import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, contacts } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { BASE, confirmationLink, confirmInBrowser, connect, rawPost, structured } from "./helpers";

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

/** A 2026-07-28 tools/call; `capabilities` is what the client declares in this request's envelope. */
async function call(args: Record<string, unknown>, capabilities: object, extra: Record<string, unknown> = {}) {
  const res = await rawPost(
    {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "contact.suppress",
        arguments: args,
        ...extra,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    },
    {
      authorization: `Bearer ${key}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "contact.suppress",
    },
  );
  return ((await res.json()) as any).result;
}

describe("confirmation of a write skill", () => {
  it("2026-07-28 with elicitation: input_required with a form, then the accepted retry runs it", async () => {
    const id = await newContact("elicit@example.com");
    const first = await call({ contactId: id, reason: "asked", confirm: true }, { elicitation: { form: {} } });
    // confirm: true from the model does not skip the question when the client can ask the user
    expect(first.resultType).toBe("input_required");
    const ask = first.inputRequests.confirm;
    expect(ask.method).toBe("elicitation/create");
    expect(ask.params.message).toContain(id);
    expect(ask.params.requestedSchema.required).toEqual(["confirm"]);
    expect(await suppressed(id)).toBe(false);

    expect(typeof first.requestState).toBe("string");
    const yes = { confirm: { action: "accept", content: { confirm: true } } };
    // the answer is bound to the call it was asked about: other arguments, or no state, are asked again
    const other = await newContact("other@example.com");
    const replayed = await call(
      { contactId: other, reason: "asked" },
      { elicitation: {} },
      { inputResponses: yes, requestState: first.requestState },
    );
    expect(replayed.resultType).toBe("input_required");
    const stateless = await call({ contactId: id, reason: "asked" }, { elicitation: {} }, { inputResponses: yes });
    expect(stateless.resultType).toBe("input_required");
    expect(await suppressed(other)).toBe(false);

    // presenting the state with other arguments spent it (single use): the right call is asked again
    const spent = await call(
      { contactId: id, reason: "asked" },
      { elicitation: { form: {} } },
      { inputResponses: yes, requestState: first.requestState },
    );
    expect(spent.resultType).toBe("input_required");
    const retry = await call(
      { contactId: id, reason: "asked" },
      { elicitation: { form: {} } },
      { inputResponses: yes, requestState: spent.requestState },
    );
    expect(retry.isError).toBeFalsy();
    expect(retry.structuredContent).toMatchObject({ id, isSuppressed: true });
    expect(await suppressed(id)).toBe(true);
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "mcp.tool_called"), eq(auditEvents.resourceId, "contact.suppress")));
    const outcomes = rows.map((r) => (r.metadata as { outcome: string }).outcome);
    expect(outcomes).toEqual(expect.arrayContaining(["confirmation_requested", "success"]));
  });

  it("2026-07-28: a declined answer does nothing", async () => {
    const id = await newContact("decline@example.com");
    const first = await call({ contactId: id, reason: "asked" }, { elicitation: {} });
    const res = await call(
      { contactId: id, reason: "asked" },
      { elicitation: {} },
      { inputResponses: { confirm: { action: "decline" } }, requestState: first.requestState },
    );
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toContain("did not confirm");
    expect(await suppressed(id)).toBe(false);
  });

  it("a client without elicitation is refused with the confirm page's link; once confirmed there, the same call runs", async () => {
    const id = await newContact("noelicit@example.com");
    const refused = await call({ contactId: id, reason: "asked" }, {});
    expect(refused.isError).toBe(true);
    const body = JSON.parse(refused.content[0].text);
    expect(body.error).toMatch(
      /^contact\.suppress needs a confirmation in the browser; nothing was done\. Ask the user to open http:\/\/localhost:8787\/app\/t\/[a-z0-9]+\/confirm\/[A-Za-z0-9_-]{32} /,
    );
    expect(body.confirmation).toEqual({
      url: expect.stringMatching(new RegExp(`^${BASE}/app/t/${w.tenantA.id}/confirm/`)),
      expiresAt: expect.any(String),
      question: `Stop every message to contact ${id}? Reason: asked`,
      confirmedBy: "a manager or admin of this business (the call was made with an API key)",
    });
    expect(await suppressed(id)).toBe(false);
    await confirmInBrowser(body.confirmation.url);
    const done = await call({ contactId: id, reason: "asked" }, {});
    expect(done.structuredContent.isSuppressed).toBe(true);
  });

  it("a 2025 session whose client did not declare elicitation confirms in the browser too", async () => {
    const id = await newContact("session@example.com");
    const { client } = await connect({ token: key });
    const refused = await client.callTool({ name: "contact.suppress", arguments: { contactId: id, reason: "asked" } });
    expect(refused.isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
    await confirmInBrowser(confirmationLink(refused)!);
    const done = structured(
      await client.callTool({ name: "contact.suppress", arguments: { contactId: id, reason: "asked" } }),
    );
    expect(done.isSuppressed).toBe(true);
  });
});
