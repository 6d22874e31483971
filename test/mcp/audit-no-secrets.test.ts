import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { askOfLink, confirmationLink, rawPost } from "./helpers";

// Issue #44 item 1: a tenant_admin reads the tenant's audit rows (GET /v1/audit-events and its CSV
// export). A tool call's row named the MCP session id it came from, and a refused confirming call
// quoted the one-time code (today: the confirm page's link, whose id is kept out too); neither may be
// readable there. Calls of one session are tied together
// by a keyed hash of the session id instead.

const VERSION = "2025-11-25";
let w: World;
let key = "";
let contactId = "";

beforeAll(async () => {
  w = await createWorld();
  key = (
    await w.as("tenantAdmin").post("/v1/api-keys", {
      name: "audited",
      scopes: ["read:locations", "read:contacts", "write:contacts"],
    })
  ).body.key;
  contactId = (await w.as("manager").post("/v1/contacts", { email: "audited@example.com" })).body.id;
});

async function openSession(): Promise<string> {
  const res = await rawPost(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "audit", version: "1" } },
    },
    { authorization: `Bearer ${key}` },
  );
  await res.body?.cancel();
  return res.headers.get("mcp-session-id")!;
}

async function call(sessionId: string, name: string, args: Record<string, unknown>) {
  const res = await rawPost(
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
    { authorization: `Bearer ${key}`, "mcp-session-id": sessionId, "mcp-protocol-version": VERSION },
  );
  return ((await res.json()) as { result: unknown }).result;
}

describe("what a tenant admin reads in the audit log of MCP tool calls", () => {
  it("neither session ids nor confirmation codes; calls of one session share a keyed reference", async () => {
    const one = await openSession();
    const two = await openSession();
    await call(one, "location.list", { limit: 1 });
    await call(one, "contact.list", { limit: 1 });
    await call(two, "location.list", { limit: 1 });
    const refused = await call(two, "contact.suppress", { contactId, reason: "asked" });
    const link = confirmationLink(refused)!;
    const { id: ask } = askOfLink(link);

    const list = await w.as("tenantAdmin").get("/v1/audit-events?action=mcp.tool_called&limit=200");
    expect(list.status).toBe(200);
    const csv = await w.as("tenantAdmin").get("/v1/audit-events/export?action=mcp.tool_called");
    expect(csv.status).toBe(200);
    for (const [where, text] of [
      ["list", list.text],
      ["CSV export", csv.text],
    ] as const) {
      for (const secret of [one, two, one.split(".")[1]!, two.split(".")[1]!, link, ask])
        expect(text, `${where} holds ${secret.slice(0, 12)}...`).not.toContain(secret);
    }

    const rows = list.body.data as { metadata: Record<string, unknown> }[];
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r.metadata).not.toHaveProperty("sessionId");
    const refs = rows.map((r) => r.metadata.sessionRef as string).reverse(); // oldest first
    for (const ref of refs) expect(ref).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(refs[0]).toBe(refs[1]);
    expect(refs[2]).toBe(refs[3]);
    expect(refs[0]).not.toBe(refs[2]);
    // the refused call still says why, without the code
    const suppress = rows.find((r) => r.metadata.tool === "contact.suppress")!;
    expect(suppress.metadata).toMatchObject({ outcome: "not_confirmed" });
    expect(String(suppress.metadata.error)).toContain("confirmation");
  });
});
