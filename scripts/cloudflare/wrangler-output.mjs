// Parsers for what wrangler 4.x prints (node_modules/wrangler/wrangler-dist/cli.js):
//   d1 list --json        JSON.stringify(databases, null, 2): [{uuid, name, created_at, version, ...}]
//   kv namespace list     JSON.stringify(namespaces, null, "  "): [{id, title, supports_url_encoding}]
//   queues list           a cli-table3 table: id | name | created_on | modified_on | producers | consumers
//   secret list --format json   JSON.stringify(secrets, null, "  "): [{name, type}]
// JSON is read from the first "[" so a warning printed before it does not break the parse.

function jsonArray(out, what) {
  const start = out.indexOf("[");
  if (start < 0) throw new Error(`unexpected output of ${what}: ${out.slice(0, 200)}`);
  const parsed = JSON.parse(out.slice(start));
  if (!Array.isArray(parsed)) throw new Error(`unexpected output of ${what}: not a list`);
  return parsed;
}

export const parseD1List = (out) => jsonArray(out, "wrangler d1 list --json");
export const parseKvList = (out) => jsonArray(out, "wrangler kv namespace list");
export const parseSecretList = (out) => jsonArray(out, "wrangler secret list");

/** Rows of a cli-table3 table as objects keyed by its header; [] for an empty table. */
export function parseQueuesTable(out) {
  const rows = out
    .split("\n")
    .filter((l) => l.trimStart().startsWith("│"))
    .map((l) =>
      l
        .trim()
        .slice(1, -1)
        .split("│")
        .map((c) => c.trim()),
    );
  if (rows.length === 0) return [];
  const [head, ...data] = rows;
  return data.map((cells) => Object.fromEntries(head.map((h, i) => [h, cells[i] ?? ""])));
}
