import { env } from "cloudflare:workers";
import { controlDb, shardDb } from "../../src/db/shards";
import type { Env } from "../../src/env";
import type { ServiceContext } from "../../src/lib/context";

/** A D1 failure to inject: the next `times` calls (batch or single statement) whose SQL matches fail before reaching D1. */
export interface Fault {
  match: (sql: string) => boolean;
  /** how many matching calls pass before the first failure (default 0) */
  skip?: number;
  times?: number;
}

/**
 * A D1 binding that forwards to the real one and fails the chosen calls, as a D1 outage or a
 * reset connection would: the call throws and writes nothing (a D1 batch is one transaction).
 */
export function faultyD1(real: D1Database, faults: Fault[]) {
  const state = faults.map((f) => ({ ...f, skip: f.skip ?? 0, times: f.times ?? 1 }));
  const injected: string[] = [];
  const check = (sqls: string[]) => {
    for (const f of state) {
      if (f.times <= 0 || !sqls.some(f.match)) continue;
      if (f.skip > 0) {
        f.skip--;
        continue;
      }
      f.times--;
      injected.push(sqls[0]!);
      throw new Error("D1_ERROR: injected fault: network connection lost");
    }
  };
  class Statement {
    constructor(
      readonly sql: string,
      readonly real: D1PreparedStatement,
    ) {}
    bind(...values: unknown[]) {
      return new Statement(this.sql, this.real.bind(...values));
    }
    first(column?: string) {
      check([this.sql]);
      return column === undefined ? this.real.first() : this.real.first(column);
    }
    run() {
      check([this.sql]);
      return this.real.run();
    }
    all() {
      check([this.sql]);
      return this.real.all();
    }
    raw(o?: { columnNames?: boolean }) {
      check([this.sql]);
      return this.real.raw(o as { columnNames: true });
    }
  }
  const d1 = {
    prepare: (sql: string) => new Statement(sql, real.prepare(sql)),
    batch: (statements: Statement[]) => {
      check(statements.map((s) => s.sql));
      return real.batch(statements.map((s) => s.real));
    },
    exec: (sql: string) => {
      check([sql]);
      return real.exec(sql);
    },
    dump: () => real.dump(),
    withSession: () => d1,
  };
  return { d1: d1 as unknown as D1Database, injected };
}

/** The test env with a faulty DB binding. */
export function faultyEnv(faults: Fault[]) {
  const { d1, injected } = faultyD1(env.DB, faults);
  // shard 0 is the control database in tests: both handles reach the faulty binding
  return { env: { ...env, DB: d1, SHARD_0: d1 } as Env, injected };
}

/** A ServiceContext of a tenant over the given env, as a request of a manager would build it. */
export function serviceContext(e: Env, tenantId: string, deferred: Promise<unknown>[] = []): ServiceContext {
  return {
    db: shardDb(e, 0),
    control: controlDb(e),
    env: e,
    tenantId,
    actor: { type: "system", name: "reliability-test" },
    meta: { ip: null, userAgent: null, requestId: null },
    defer: (p) => void deferred.push(p.catch(() => undefined)),
  };
}

export const insertInto = (table: string) => (sql: string) => sql.toLowerCase().startsWith(`insert into "${table}"`);
export const updateOf = (table: string) => (sql: string) => sql.toLowerCase().startsWith(`update "${table}"`);
