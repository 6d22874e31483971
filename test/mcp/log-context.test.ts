import { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { log } from "../../src/lib/log";
import { registerSkills, skill } from "../../src/modules/mcp/skills/registry";
import { createWorld, type World } from "../helpers/seed";
import { connect, connectV2, mintTestKey, structured } from "./helpers";

/**
 * A tool call's log lines carry the tenant and its shard (docs/ARCHITECTURE.md, Logging), on both
 * protocol legs, as /v1 requests' lines do once middleware/tenant.ts resolved the tenant.
 */
registerSkills([
  skill({
    name: "test.logs",
    title: "Test logs",
    description: "test only: writes one log line",
    input: z.object({ leg: z.string() }),
    scopes: ["read:locations"],
    access: "read",
    handler: async (_ctx, input) => {
      log.info("test tool ran", { leg: input.leg });
      return { ok: true };
    },
  }),
]);

let w: World;
let lines: Record<string, unknown>[];
beforeAll(async () => {
  w = await createWorld({ shardA: 1, shardB: 0 }); // tenant A on shard 1: a stamped shard 0 would be a default
});
beforeEach(() => {
  lines = [];
  for (const m of ["log", "warn", "error"] as const) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      try {
        lines.push(JSON.parse(String(args[0])));
      } catch {
        // not a logger line (the SDK's own output): not ours to check
      }
    });
  }
});
afterEach(() => vi.restoreAllMocks());

const ranOn = (leg: string) => lines.filter((l) => l.message === "test tool ran" && l.leg === leg);

describe("MCP tool calls stamp the tenant and the shard on their log lines", () => {
  it("on the 2025-11-25 session leg", async () => {
    const { token } = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { client } = await connect({ token });
    expect(structured(await client.callTool({ name: "test.logs", arguments: { leg: "session" } }))).toEqual({
      ok: true,
    });
    expect(ranOn("session")).toEqual([
      expect.objectContaining({ level: "info", tenantId: w.tenantA.id, shard: 1, requestId: expect.any(String) }),
    ]);
  });

  it("on the 2026-07-28 stateless leg", async () => {
    const { token } = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { client } = await connectV2({ token });
    const result = await client.callTool({ name: "test.logs", arguments: { leg: "stateless" } });
    expect((result as { structuredContent?: unknown }).structuredContent).toEqual({ ok: true });
    expect(ranOn("stateless")).toEqual([
      expect.objectContaining({ level: "info", tenantId: w.tenantA.id, shard: 1, requestId: expect.any(String) }),
    ]);
  });
});
