import { beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/db/schema";
import { control, createWorld, shardOf, type World } from "../helpers/seed";

// The dev mailbox (src/modules/dev-mailbox): what the built-in `outbox` provider stored instead of
// sending, read by the platform admin at GET /admin/outbox (the path keeps its historic name).
let w: World;
const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, "0")}:00.000Z`;
const mail = (id: string, tenantId: string | null, minute: number) => ({
  id,
  tenantId,
  channel: "email" as const,
  to: `${id}@example.test`,
  subject: `Subject ${id}`,
  html: `<p>${id}</p>`,
  text: id,
  headers: { "x-test": id },
  solicitationId: null,
  createdAt: at(minute),
});

beforeAll(async () => {
  w = await createWorld({ shardB: 1 });
  const a = w.tenantA.id;
  await shardOf(w.tenantA)
    .insert(outboxMessages)
    .values([mail("mbx_a1", a, 1), mail("mbx_a2", a, 3)]);
  // tenant B lives on shard 1: its mail is stored there
  await shardOf(w.tenantB)
    .insert(outboxMessages)
    .values([mail("mbx_b1", w.tenantB.id, 2)]);
  // account mail of no tenant is stored on the control database
  await control()
    .insert(outboxMessages)
    .values([mail("mbx_none", null, 4)]);
});

const ours = (rows: { id: string }[]) => rows.map((r) => r.id).filter((id) => id.startsWith("mbx_"));

describe("GET /admin/outbox (the dev mailbox)", () => {
  it("lists every shard's messages and the control database's, newest first, with every field", async () => {
    const res = await w.as("platformAdmin").get("/admin/outbox?limit=200");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ours(res.body.data)).toEqual(["mbx_none", "mbx_a2", "mbx_b1", "mbx_a1"]);
    expect(res.body.data.find((m: { id: string }) => m.id === "mbx_a2")).toEqual({
      id: "mbx_a2",
      tenantId: w.tenantA.id,
      channel: "email",
      to: "mbx_a2@example.test",
      subject: "Subject mbx_a2",
      html: "<p>mbx_a2</p>",
      text: "mbx_a2",
      headers: { "x-test": "mbx_a2" },
      solicitationId: null,
      createdAt: at(3),
    });
  });

  it("with tenantId reads that tenant's shard only, and limit caps the page", async () => {
    const b = await w.as("platformAdmin").get(`/admin/outbox?tenantId=${w.tenantB.id}`);
    expect(ours(b.body.data)).toEqual(["mbx_b1"]);
    const a = await w.as("platformAdmin").get(`/admin/outbox?tenantId=${w.tenantA.id}&limit=1`);
    expect(a.body.data.map((m: { id: string }) => m.id)).toEqual(["mbx_a2"]);
  });

  it("refuses a limit outside 1..200 with VALIDATION_ERROR", async () => {
    for (const limit of ["0", "201", "many"]) {
      const res = await w.as("platformAdmin").get(`/admin/outbox?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
  });

  it("is the platform admin's only: tenant and agency admins get 403", async () => {
    for (const who of ["tenantAdmin", "agencyAdmin"] as const) {
      const res = await w.as(who).get(`/admin/outbox?tenantId=${w.tenantA.id}`);
      expect(res.status, who).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
  });
});
