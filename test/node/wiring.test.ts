import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { QUEUE_NAMES } from "../../src/background/queue";
import { EVENT_HANDLERS, WIRING } from "../../src/wiring";

// The composition root (src/wiring.ts) against what wrangler.toml deploys: a queue nobody consumes
// would retry and dead-letter every message; a consumer of an undeclared queue never runs.
const toml = readFileSync(path.join(import.meta.dirname, "../../wrangler.toml"), "utf8");

/** the `key = "value"` lines of every [[section]] table, in order */
function tables(section: string): Record<string, string>[] {
  return toml
    .split(/^\s*\[/m)
    .filter((block) => block.startsWith(`[${section}]]`))
    .map((block) => Object.fromEntries([...block.matchAll(/^\s*(\w+)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1]!, m[2]!])));
}

describe("wiring <-> wrangler.toml", () => {
  it("gives every consumed queue exactly one consumer, and consumes no undeclared queue", () => {
    const consumed = tables("queues.consumers")
      .map((t) => t.queue)
      .sort();
    expect(consumed).toContain("dead-letter");
    expect(Object.keys(WIRING.queues).sort()).toEqual(consumed);
    expect([...QUEUE_NAMES].sort()).toEqual(consumed);
  });

  it("sends every producer binding to a consumed queue", () => {
    const consumed = new Set(tables("queues.consumers").map((t) => t.queue));
    const produced = tables("queues.producers").map((t) => t.queue);
    expect(produced.length).toBeGreaterThan(0);
    expect(produced.filter((q) => !consumed.has(q))).toEqual([]);
  });

  it("dead-letters every consumer except the dead-letter queue itself", () => {
    const undead = tables("queues.consumers").filter(
      (t) => t.queue !== "dead-letter" && t.dead_letter_queue !== "dead-letter",
    );
    expect(undead).toEqual([]);
  });

  it("has sweeps for exactly the cron triggers", () => {
    const crons = [...(/^crons\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "").matchAll(/"([^"]+)"/g)]
      .map((m) => m[1])
      .sort();
    expect(crons.length).toBeGreaterThan(0);
    expect(Object.keys(WIRING.sweeps).sort()).toEqual(crons);
    for (const cron of crons) expect(WIRING.sweeps[cron as keyof typeof WIRING.sweeps].length).toBeGreaterThan(0);
  });

  it("names each event handler and each sweep once per cron (names key processed_events and logs)", () => {
    const names = EVENT_HANDLERS.map((h) => h.name);
    expect(new Set(names).size).toBe(names.length);
    for (const sweeps of Object.values(WIRING.sweeps))
      expect(new Set(sweeps.map((s) => s.name)).size).toBe(sweeps.length);
  });
});
