import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { servingRequest, yieldingD1 } from "../../src/db/yielding";

/** A stand-in binding whose batch() records when it starts and, if given a gate, ends only when the gate opens. */
function recordingD1(order: string[], name: string, gate?: Promise<void>): D1Database {
  return {
    batch: async () => {
      order.push(`${name} starts`);
      await gate;
      order.push(`${name} ends`);
      return [];
    },
  } as unknown as D1Database;
}

function deferred(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await scheduler.wait(0);
};

describe("background D1 (queue consumers and cron sweeps)", () => {
  it("waits while a request is being served and goes when it has been answered", async () => {
    const order: string[] = [];
    const request = deferred();
    const served = servingRequest(async () => {
      await request.promise;
      order.push("request answered");
      return new Response("ok");
    });
    const background = yieldingD1(recordingD1(order, "background")).batch([]);
    await ticks(3);
    expect(order).toEqual([]);
    request.open();
    await served;
    await background;
    expect(order).toEqual(["request answered", "background starts", "background ends"]);
  });

  it("goes anyway once it has waited its limit: a flood of requests slows background work but never stops it", async () => {
    const order: string[] = [];
    const request = deferred();
    const served = servingRequest(async () => {
      await request.promise;
      return new Response("ok");
    });
    await yieldingD1(recordingD1(order, "background")).batch([]);
    expect(order).toEqual(["background starts", "background ends"]);
    request.open();
    await served;
  });

  it("runs one background round trip at a time", async () => {
    const order: string[] = [];
    const first = deferred();
    const one = yieldingD1(recordingD1(order, "first", first.promise)).batch([]);
    await ticks(2);
    const two = yieldingD1(recordingD1(order, "second")).batch([]);
    await ticks(3);
    expect(order).toEqual(["first starts"]);
    first.open();
    await Promise.all([one, two]);
    expect(order).toEqual(["first starts", "first ends", "second starts", "second ends"]);
  });

  it("answers like the binding it wraps", async () => {
    const db = yieldingD1(env.DB);
    expect(yieldingD1(env.DB)).toBe(db);
    expect(await db.prepare("select ? + 1 as n").bind(41).first()).toEqual({ n: 42 });
    const answers = await db.batch([db.prepare("select 1 as n"), db.prepare("select 2 as n")]);
    expect(answers.map((a) => a.results)).toEqual([[{ n: 1 }], [{ n: 2 }]]);
  });
});
