import { env } from "cloudflare:workers";
import { controlDb, shardD1 } from "../../src/db/shards";
import { tenantTables } from "../../src/db/tenant-move";
import type { Env } from "../../src/env";
import { SYSTEM_META } from "../../src/lib/context";
import { newId } from "../../src/lib/ids";
import { handleMoveMessage, type TenantMoveMessage } from "../../src/modules/admin/background";
import { getTenantMove, type MoveSettings, startTenantMove } from "../../src/modules/admin/tenant-move.service";

/** Rows of the tenant per tenant-owned table on one shard (tables with none left out), counted in one batch. */
export async function rowsOn(shard: number, tenantId: string) {
  const d1 = shardD1(env, shard);
  const tables = await tenantTables(d1);
  const counts = await d1.batch<{ n: number }>(
    tables.map((t) => d1.prepare(`select count(*) as n from "${t.name}" where tenant_id = ?`).bind(tenantId)),
  );
  const out: Record<string, number> = {};
  tables.forEach((t, i) => {
    const n = counts[i]!.results[0]!.n;
    if (n) out[t.name] = n;
  });
  return out;
}

/** The tenant's rows of one table in key order, for comparing both sides value by value. */
export async function tableRows(shard: number, table: string, tenantId: string) {
  return (
    await shardD1(env, shard).prepare(`select * from "${table}" where tenant_id = ? order by id`).bind(tenantId).all()
  ).results;
}

async function insertJson(d1: D1Database, table: string, rows: Record<string, unknown>[]) {
  const cols = Object.keys(rows[0]!);
  const sql = `insert into ${table} (${cols.join(", ")}) select ${cols.map((c) => `json_extract(value, '$.${c}')`).join(", ")} from json_each(?)`;
  for (let i = 0; i < rows.length; i += 500)
    await d1
      .prepare(sql)
      .bind(JSON.stringify(rows.slice(i, i + 500)))
      .run();
}

export async function seedContacts(tenant: { id: string; shard: number }, n: number): Promise<string[]> {
  const now = new Date().toISOString();
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId(),
    tenant_id: tenant.id,
    email: `c${i}-${newId()}@example.test`,
    first_name: `C${i}`,
    created_at: now,
    updated_at: now,
  }));
  await insertJson(shardD1(env, tenant.shard), "contacts", rows);
  return rows.map((r) => r.id);
}

export async function seedSolicitations(
  tenant: { id: string; shard: number },
  locationId: string,
  contactIds: string[],
) {
  const now = new Date().toISOString();
  const rows = contactIds.map((contactId, i) => ({
    id: newId(),
    tenant_id: tenant.id,
    location_id: locationId,
    contact_id: contactId,
    channel: "email",
    status: i % 3 ? "SENT" : "DELIVERED",
    short_link_token: `tok_${newId()}`,
    metadata: JSON.stringify({ n: i, note: 'it\'s "quoted"' }),
    created_at: now,
    updated_at: now,
  }));
  await insertJson(shardD1(env, tenant.shard), "solicitations", rows);
}

/**
 * A whole move run in this test, message by message (the JOBS producer replaced by a list, no settle
 * wait); returns the move record once finished.
 */
export async function moveInline(
  tenantId: string,
  to: number,
  platformAdminId: string,
  settings: Partial<MoveSettings> = {},
) {
  const sent: TenantMoveMessage[] = [];
  const e = { ...env, JOBS: { send: async (body: TenantMoveMessage) => void sent.push(body) } } as unknown as Env;
  const ctx = {
    db: controlDb(e),
    control: controlDb(e),
    env: e,
    actor: { type: "user" as const, userId: platformAdminId, via: "platform" as const },
    meta: SYSTEM_META,
    defer: () => {},
  };
  const move = await startTenantMove(ctx, tenantId, to, { settleSeconds: 0, ...settings });
  while (sent.length) {
    const message = {
      id: `m-${newId()}`,
      timestamp: new Date(),
      body: sent.shift(),
      attempts: 1,
      ack: () => {},
      retry: () => {},
    } as unknown as Message<unknown>;
    await handleMoveMessage(e, message);
  }
  return getTenantMove(env, move.id);
}
