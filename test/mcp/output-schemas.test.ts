import { beforeAll, describe, expect, it } from "vitest";
import { allSkills, declaresOutput, outputSchema } from "../../src/modules/mcp/skills/registry";
import { ALL_SCOPES } from "../../src/modules/oauth/scopes";
import { createWorld, type World } from "../helpers/seed";
import { callConfirmed, confirmationLink, confirmInBrowser, connect, rawPost } from "./helpers";

let w: World;
let key = "";
const ids: Record<string, string> = {};
/** submitted replies for response.approve and response.reject: each call moves one, two per leg */
const submitted: string[] = [];

beforeAll(async () => {
  w = await createWorld();
  const res = await w.as("tenantAdmin").post("/v1/api-keys", { name: "every scope", scopes: ALL_SCOPES });
  key = res.body.key;
  const loc = await w
    .as("manager")
    .post("/v1/locations", { name: "Main St", city: "Springfield", latitude: 39.78, longitude: -89.65 });
  ids.locationId = loc.body.id;
  ids.contactId = (await w.as("manager").post("/v1/contacts", { email: "ann@example.com", firstName: "Ann" })).body.id;
  ids.secondContactId = (
    await w.as("manager").post("/v1/contacts", { email: "bo@example.com", firstName: "Bo" })
  ).body.id;
  await w.as("manager").post(`/v1/contacts/${ids.contactId}/consent`, { channel: "email", source: "form" });
  ids.campaignId = (
    await w.as("manager").post("/v1/campaigns", { name: "After visit", type: "drip", channels: ["email"] })
  ).body.id;
  const review = await w.as("manager").post("/v1/reviews/ingest", {
    locationId: ids.locationId,
    siteType: "google",
    rating: 4,
    text: "Nice",
    externalReviewId: "g-1",
  });
  ids.reviewId = review.body.id;
  const inbox = await w.as("manager").get("/v1/inbox?limit=1");
  ids.itemId = inbox.body.data[0]?.id;
  const survey = await w.as("manager").post("/v1/surveys", { name: "NPS", type: "NPS" });
  ids.surveyId = survey.body.id;
  await w.as("manager").post("/v1/competitors", { locationId: ids.locationId, name: "Rival" });
  // two approved replies: response.mark-published is called once per leg
  for (const key of ["responseId", "secondResponseId"]) {
    const reply = await w.as("manager").post(`/v1/reviews/${ids.reviewId}/responses`, { text: `Thank you (${key})` });
    await w.as("manager").post(`/v1/responses/${reply.body.id}/submit`);
    expect((await w.as("manager").post(`/v1/responses/${reply.body.id}/approve`)).body.status).toBe("approved");
    ids[key] = reply.body.id;
  }
  for (let i = 0; i < 4; i++) {
    const reply = await w.as("manager").post(`/v1/reviews/${ids.reviewId}/responses`, { text: `Thanks (${i})` });
    expect((await w.as("manager").post(`/v1/responses/${reply.body.id}/submit`)).body.status).toBe("submitted");
    submitted.push(reply.body.id);
  }
  ids.draftId = (await w.as("manager").post(`/v1/reviews/${ids.reviewId}/responses`, { text: "Draft" })).body.id;
});

/** Arguments for a call: the required inputs, filled from the seeded ids or a plain value. */
function argumentsFor(
  name: string,
  schema: { properties?: Record<string, any>; required?: string[] },
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const field of schema.required ?? []) {
    const p = schema.properties?.[field] ?? {};
    if (ids[field]) args[field] = ids[field];
    else if (p.enum) args[field] = p.enum[0];
    else if (p.type === "number" || p.type === "integer") {
      const lo = p.minimum ?? p.exclusiveMinimum ?? 0;
      const hi = p.maximum ?? p.exclusiveMaximum;
      args[field] =
        hi === undefined ? Math.max(lo, 1) : p.type === "integer" ? Math.ceil((lo + hi) / 2) : (lo + hi) / 2;
    } else if (p.type === "boolean") args[field] = false;
    else if (p.type === "array") args[field] = [];
    else args[field] = "How are our reviews?";
  }
  if (name === "inbox.get") args.itemType = "review";
  if (name === "location.finder") args.query = "Main";
  if (name === "agent.compliance-critic") args.campaignId = ids.campaignId;
  if (name === "agent.experiment-designer") args.baselineRate = 0.1;
  if (name === "agent.outcome-analyst") args.campaignId = ids.campaignId;
  if (name === "contact.suppress") args.reason = "asked";
  // the long jobs (answered synchronously here: these calls do not declare the tasks extension)
  if (name === "contact.import-csv") args.csv = "email,first_name\ncara@example.com,Cara";
  if (name === "campaign.send-bulk") Object.assign(args, { csv: "email\nann@example.com", locationId: ids.locationId });
  // the reply approval steps each need a reply in the state they move from
  if (name === "response.approve" || name === "response.reject") args.responseId = submitted.shift();
  if (name === "response.update") Object.assign(args, { responseId: ids.draftId, text: "Thank you, edited" });
  // the triage steps on the seeded inbox item (unassigning an unassigned item is a no-op; resolved is reachable from every status it has here)
  if (name === "inbox.assign") args.userId = null;
  if (name === "inbox.set-tags") args.tags = ["vip"];
  if (name === "inbox.set-status") Object.assign(args, { itemIds: [ids.itemId], status: "resolved" });
  // confirm: left out; the calls below bring back the one-time code the refusal carries
  delete args.confirm;
  return args;
}

describe("annotations and titles", () => {
  it("every tool has a title and hints that match what it does", async () => {
    const { client } = await connect({ token: key });
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const t of tools) {
      expect(t.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/); // 2025-11-25 tool-name rules
      expect(t.title, t.name).toBeTruthy();
      // a 2025-11-25 client reads title; annotations.title is only for 2025-03-26 (test/mcp/clients.test.ts)
      expect(t.annotations?.title).toBeUndefined();
      // the server's icon stands for every tool (serverInfo.icons)
      expect(t.icons, t.name).toBeUndefined();
    }
    // reads: read-only, closed world; destructive and idempotent mean nothing for a read (ToolAnnotations)
    for (const name of ["location.list", "review.list", "inbox.get", "contact.list", "agent.reputation-insight"]) {
      expect(hints[name], name).toEqual({ readOnlyHint: true, openWorldHint: false });
    }
    // contact.suppress changes a contact (not destructive, a second call is a 409, not a no-op)
    expect(hints["contact.suppress"]).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    // template-generator saves draft templates when asked (create: true)
    expect(hints["agent.template-generator"]).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });
});

describe("output schemas", () => {
  it("every skill declares its structuredContent schema", () => {
    const missing = allSkills()
      .filter((s) => !declaresOutput(s))
      .map((s) => s.name);
    expect(missing).toEqual([]);
  });

  it("2025-06-18 session: every tool's call returns structuredContent valid against its outputSchema (zod and the SDK client's own check)", async () => {
    const { client } = await connect({ token: key });
    const { tools } = await client.listTools();
    expect(tools.length).toBe(allSkills().filter((s) => !s.agencyOnly && !s.platformOnly && !s.callers).length);
    const checked: string[] = [];
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      // the SDK client validates structuredContent against the advertised outputSchema and throws if it does not match
      const result = await callConfirmed(client, tool.name, argumentsFor(tool.name, tool.inputSchema as any));
      expect(result.isError, `${tool.name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      const skill = allSkills().find((s) => s.name === tool.name)!;
      const parsed = outputSchema(skill).safeParse(result.structuredContent);
      expect(parsed.success, `${tool.name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
      checked.push(tool.name);
    }
    expect(checked).toContain("contact.suppress");
    expect(checked).toContain("review.summary");
  });

  it("2026-07-28 stateless: the same tools, each call valid against its outputSchema", async () => {
    const post = (method: string, params: Record<string, unknown>) =>
      rawPost(
        {
          jsonrpc: "2.0",
          id: 1,
          method,
          params: {
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        },
        {
          authorization: `Bearer ${key}`,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(params.name ? { "mcp-name": String(params.name) } : {}),
        },
      ).then((r) => r.json() as Promise<any>);
    const { result } = await post("tools/list", {});
    expect(result.tools.length).toBe(allSkills().filter((s) => !s.agencyOnly && !s.platformOnly && !s.callers).length);
    ids.contactId = ids.secondContactId!; // the first one was suppressed by the session leg
    ids.responseId = ids.secondResponseId!; // and the first reply marked published
    for (const tool of result.tools) {
      const args = argumentsFor(tool.name, tool.inputSchema);
      const first = await post("tools/call", { name: tool.name, arguments: args });
      const link = confirmationLink(first.result);
      if (link) await confirmInBrowser(link);
      const call = link ? await post("tools/call", { name: tool.name, arguments: args }) : first;
      expect(call.result?.isError, `${tool.name}: ${JSON.stringify(call)}`).toBeFalsy();
      const skill = allSkills().find((s) => s.name === tool.name)!;
      expect(outputSchema(skill).safeParse(call.result.structuredContent).success, tool.name).toBe(true);
    }
  });
});
