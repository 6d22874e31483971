import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_DEFER_MS, servingRequest, yieldingD1 } from "../../src/db/yielding";

/** When each stand-in's batch() started (Date.now()), by name. */
const startedAt = new Map<string, number>();

/** A stand-in binding whose batch() records when it starts and, if given a gate, ends only when the gate opens. */
function recordingD1(order: string[], name: string, gate?: Promise<void>): D1Database {
  return {
    batch: async () => {
      startedAt.set(name, Date.now());
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
  // The gate gives way for at most MAX_DEFER_MS of wall-clock time. On a loaded machine (CI's two cores running
  // four test runners) a few event-loop turns can take longer than that, and then the background call goes
  // anyway, as designed. So each case asserts the rule itself: the call waits for the request (or the
  // other call) to finish, or else it started no earlier than its limit after it was asked. A gate that did
  // not wait would start within a millisecond or two and fail.
  it("waits while a request is being served and goes when it has been answered", async () => {
    const order: string[] = [];
    const request = deferred();
    const served = servingRequest(async () => {
      await request.promise;
      order.push("request answered");
      return new Response("ok");
    });
    const asked = Date.now();
    const background = yieldingD1(recordingD1(order, "background")).batch([]);
    await ticks(3);
    const wentAnyway = order.length > 0;
    if (wentAnyway) expect(startedAt.get("background")! - asked).toBeGreaterThanOrEqual(MAX_DEFER_MS);
    else expect(order).toEqual([]);
    request.open();
    await served;
    await background;
    expect(order).toEqual(
      wentAnyway
        ? ["background starts", "background ends", "request answered"]
        : ["request answered", "background starts", "background ends"],
    );
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
    const asked = Date.now();
    const two = yieldingD1(recordingD1(order, "second")).batch([]);
    await ticks(3);
    const wentAnyway = order.includes("second starts");
    if (wentAnyway) expect(startedAt.get("second")! - asked).toBeGreaterThanOrEqual(MAX_DEFER_MS);
    else expect(order).toEqual(["first starts"]);
    first.open();
    await Promise.all([one, two]);
    expect(order).toEqual(
      wentAnyway
        ? ["first starts", "second starts", "second ends", "first ends"]
        : ["first starts", "first ends", "second starts", "second ends"],
    );
  });

  it("answers like the binding it wraps", async () => {
    const db = yieldingD1(env.DB);
    expect(yieldingD1(env.DB)).toBe(db);
    expect(await db.prepare("select ? + 1 as n").bind(41).first()).toEqual({ n: 42 });
    const answers = await db.batch([db.prepare("select 1 as n"), db.prepare("select 2 as n")]);
    expect(answers.map((a) => a.results)).toEqual([[{ n: 1 }], [{ n: 2 }]]);
  });
});
