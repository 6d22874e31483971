// SQL on a served Worker's database from any process, over plain HTTP (bench/lib/server.mjs). A second
// Worker in the same Miniflare binds the same D1 database and listens on a socket of its own (never behind
// the product's address); what it runs is the real D1 binding's `batch`, so a statement behaves as it does
// in the Worker. It replaces Miniflare's getD1Database proxy, which started a worker thread with a
// synchronous fetcher in every process that served the Worker (about 1.3 s of CPU per start, most of a
// served Worker's Node-side cost in the node tests, docs/testing.md), could not be handed to another
// process (the node tests' shared Worker, test/setup/served-worker.ts), and failed its own assertion now
// and then on a loaded machine.

/** The companion Worker: POST [{ sql, params }] runs them as one D1 batch (one transaction) and answers its results. */
export const SQL_WORKER = /* js */ `
export default {
  async fetch(request, env) {
    if (request.method !== "POST") return new Response("POST [{ sql, params }]", { status: 405 });
    const statements = await request.json();
    try {
      const results = await env.DB.batch(statements.map((s) => env.DB.prepare(s.sql).bind(...s.params)));
      return Response.json(results);
    } catch (e) {
      return Response.json({ error: String(e?.message ?? e) }, { status: 500 });
    }
  },
};`;

/** The values D1 binds that survive JSON as they are. */
const bindable = (v) => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * The part of D1's API the benchmarks and the node tests use (prepare, bind, run, all, first, batch), sent to
 * the companion at `url`. A statement's result is D1's own (results, meta), carried as JSON.
 */
export function d1OverHttp(url) {
  const send = async (statements) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(statements),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(body.error);
    return body;
  };
  const statement = (sql, params = []) => ({
    sql,
    params,
    bind(...values) {
      const wrong = values.findIndex((v) => !bindable(v));
      if (wrong >= 0)
        throw new TypeError(`d1OverHttp binds null, strings, numbers and booleans; got ${typeof values[wrong]}`);
      return statement(sql, values);
    },
    run: async () => (await send([{ sql, params }]))[0],
    all: async () => (await send([{ sql, params }]))[0],
    async first(column) {
      const row = (await send([{ sql, params }]))[0].results[0] ?? null;
      return column === undefined || row === null ? row : (row[column] ?? null);
    },
  });
  return {
    prepare: (sql) => statement(sql),
    batch: (statements) => send(statements.map((s) => ({ sql: s.sql, params: s.params }))),
  };
}
