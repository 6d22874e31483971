import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { originQueue } from "../../src/background/dead-letter";
import { rollupCells, solicitations } from "../../src/db/schema";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { applyEventsToRollups, flushDirtyCells } from "../../src/modules/analytics/events";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";
import { deliver, envelope, funnelCell, newLocation, seedSolicitation } from "./helpers";

/**
 * A batch that finds a cell rebuilt under ROLLUP_REBUILD_SECONDS ago leaves it dirty and schedules one
 * delayed rebuild of the cells it left (an EVENTS message of kind "rollup_rebuild"), so a quiet tenant's
 * figures follow its last events within the interval instead of waiting for the 5-minute sweep.
 */
let w: World;
const at = (day: string) => `${day}T10:00:00.000Z`;

beforeAll(async () => {
  w = await createWorld();
});

interface Sent {
  body: { kind: string; tenantId: string; round: number; cells: [string, string, string, string, number][] };
  delaySeconds: number | undefined;
}
/** The env with ROLLUP_REBUILD_SECONDS = `seconds` and an EVENTS queue that keeps what is sent to it. */
function withQueue(seconds: number) {
  const sent: Sent[] = [];
  const EVENTS = {
    send: async (body: Sent["body"], o?: { delaySeconds?: number }) =>
      void sent.push({ body, delaySeconds: o?.delaySeconds }),
    sendBatch: async () => {
      throw new Error("a batch leaves at most one message");
    },
  };
  return { env: { ...env, ROLLUP_REBUILD_SECONDS: String(seconds), EVENTS } as unknown as Env, sent };
}

/** `n` solicitations at the location on `day`, created (and their events rolled up) as a send makes them. */
async function created(locationId: string, day: string, n: number, e: Env) {
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(await seedSolicitation(w.tenantA.id, { locationId, createdAt: at(day) }));
  await applyEventsToRollups(
    rows.map((r) => envelope(w.tenantA.id, "solicitation.created", { solicitationId: r.id })),
    e,
    db(),
  );
  return rows.map((r) => r.id);
}
/** The provider took them: what the send writes, and the events it emits. */
async function sent(ids: string[], day: string) {
  await db()
    .update(solicitations)
    .set({ status: "SENT", sentAt: at(day) })
    .where(inArray(solicitations.id, ids));
  return ids.map((id) => envelope(w.tenantA.id, "solicitation.sent", { solicitationId: id }));
}
const cellOf = (locationId: string, day: string) => funnelCell(w.tenantA.id, locationId, day);
const funnel = async (locationId: string, day: string) => {
  const res = await w.as("viewer").get(`/v1/analytics/funnel?locationId=${locationId}&dateFrom=${day}&dateTo=${day}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.totals as { requested: number; sent: number };
};
/** A location whose `n` solicitations of `day` were created, then sent seconds later: the cell left dirty, and the message it got. */
async function leftDirty(day: string, n: number) {
  const loc = (await newLocation(w)).id;
  const q = withQueue(60);
  const ids = await created(loc, day, n, q.env);
  await applyEventsToRollups(await sent(ids, day), q.env, db());
  expect(q.sent).toHaveLength(1);
  const { body } = q.sent.pop()!;
  return { loc, q, ids, body };
}
/** The message delivered through the Worker's EVENTS consumer, as the queue would. */
async function deliverMessage(body: Sent["body"], e: Env, id = "rebuild-1") {
  const ctx = createExecutionContext();
  const batch = createMessageBatch("events", [{ id, timestamp: new Date(), attempts: 1, body }]);
  await worker.queue(batch, e, ctx);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages).toEqual([]);
  expect(result.explicitAcks).toEqual([id]);
}
/** The interval is over for the cells of the location (as if their last rebuild were long ago). */
const backdate = (locationId: string) =>
  db()
    .update(rollupCells)
    .set({ builtAt: "2000-01-01T00:00:00.000Z" })
    .where(and(eq(rollupCells.tenantId, w.tenantA.id), eq(rollupCells.locationId, locationId)));

describe("a campaign's funnel follows a send within seconds on a quiet tenant", () => {
  it("the sent events, seconds after the created ones, reach the funnel through the delayed rebuild, not the sweep", async () => {
    const day = "2026-06-03";
    const loc = (await newLocation(w)).id;
    const quiet = { ...env, ROLLUP_REBUILD_SECONDS: "2" } as unknown as Env;
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await seedSolicitation(w.tenantA.id, { locationId: loc, createdAt: at(day) })).id);
    await deliver(
      ids.map((id) => envelope(w.tenantA.id, "solicitation.created", { solicitationId: id })),
      1,
      quiet,
    );
    expect(await funnel(loc, day)).toMatchObject({ requested: 3, sent: 0 });
    // the batch of sent events finds the cell rebuilt under 2 s ago: it stays dirty, and nothing else touches it
    await deliver(await sent(ids, day), 1, quiet);
    expect(
      await pollUntil(
        () => funnel(loc, day),
        (t) => t.sent === 3,
      ),
    ).toMatchObject({ requested: 3, sent: 3 });
    expect(await cellOf(loc, day)).toMatchObject({ version: 2, builtVersion: 2 });
  });

  it("one message per batch, for the cells it left dirty, delayed until their interval has passed", async () => {
    const day = "2026-06-04";
    const [l1, l2] = [(await newLocation(w)).id, (await newLocation(w)).id];
    const q = withQueue(60);
    const ids = [...(await created(l1, day, 2, q.env)), ...(await created(l2, day, 1, q.env))];
    expect(q.sent).toEqual([]); // new cells are rebuilt at once: nothing waits
    const before = Date.now();
    await applyEventsToRollups(await sent(ids, day), q.env, db());
    expect(q.sent).toHaveLength(1);
    const [{ body, delaySeconds }] = q.sent as [Sent];
    expect(body).toMatchObject({ kind: "rollup_rebuild", tenantId: w.tenantA.id, round: 0 });
    expect(body.cells.sort()).toEqual(
      [
        ["funnel", w.tenantA.id, l1, day, 2],
        ["funnel", w.tenantA.id, l2, day, 2],
      ].sort(),
    );
    // the time left until 60 s after the rebuild, rounded up
    expect(delaySeconds).toBeLessThanOrEqual(60);
    expect(delaySeconds).toBeGreaterThanOrEqual(60 - Math.ceil((Date.now() - before) / 1000) - 1);
    expect(originQueue(body)).toBe("events");
  });

  it("the message rebuilds the cells still dirty and due, once: a second delivery does nothing", async () => {
    const day = "2026-06-05";
    const { loc, q, body } = await leftDirty(day, 2);
    await backdate(loc);

    await deliverMessage(body, q.env);
    expect(await funnel(loc, day)).toMatchObject({ requested: 2, sent: 2 });
    const rebuilt = await cellOf(loc, day);
    expect(rebuilt).toMatchObject({ version: 2, builtVersion: 2 });
    expect(rebuilt!.builtAt).not.toBe("2000-01-01T00:00:00.000Z");

    // delivered again, even with the interval over: its touches are covered, so nothing is rebuilt
    await backdate(loc);
    await deliverMessage(body, q.env, "rebuild-2");
    expect(await cellOf(loc, day)).toMatchObject({ builtVersion: 2, builtAt: "2000-01-01T00:00:00.000Z" });
    expect(q.sent).toEqual([]);
  });

  it("leaves alone a cell the sweep rebuilt meanwhile, even if touched again since (that batch scheduled its own)", async () => {
    const day = "2026-06-06";
    const { loc, q, ids, body } = await leftDirty(day, 2);
    expect(await flushDirtyCells(env as unknown as Env, db())).toBeGreaterThanOrEqual(1);
    expect(await cellOf(loc, day)).toMatchObject({ version: 2, builtVersion: 2 });
    // a later touch: dirty again, with a message of its own
    await applyEventsToRollups(
      ids.slice(0, 1).map((id) => envelope(w.tenantA.id, "solicitation.clicked", { solicitationId: id })),
      q.env,
      db(),
    );
    expect(q.sent).toHaveLength(1);
    expect(q.sent[0]!.body.cells).toEqual([["funnel", w.tenantA.id, loc, day, 3]]);
    q.sent.length = 0;
    await backdate(loc);

    await deliverMessage(body, q.env);
    expect(await cellOf(loc, day)).toMatchObject({ version: 3, builtVersion: 2, builtAt: "2000-01-01T00:00:00.000Z" });
    expect(q.sent).toEqual([]);
  });

  it("a cell not due yet when the message arrives is rescheduled once, then left to a later batch or the sweep", async () => {
    const day = "2026-06-07";
    const { loc, q, body } = await leftDirty(day, 1);

    await deliverMessage(body, q.env); // early: the cell was rebuilt under 60 s ago
    expect(await cellOf(loc, day)).toMatchObject({ version: 2, builtVersion: 1 });
    expect(q.sent).toHaveLength(1);
    expect(q.sent[0]!.body).toEqual({ ...body, round: 1 });
    expect(q.sent[0]!.delaySeconds).toBeGreaterThanOrEqual(58);
    expect(q.sent[0]!.delaySeconds).toBeLessThanOrEqual(60);
    const again = q.sent[0]!.body;
    q.sent.length = 0;

    await deliverMessage(again, q.env, "rebuild-2"); // early again: not rescheduled a second time
    expect(await cellOf(loc, day)).toMatchObject({ version: 2, builtVersion: 1 });
    expect(q.sent).toEqual([]);
    expect(await flushDirtyCells(env as unknown as Env, db())).toBeGreaterThanOrEqual(1);
    expect(await funnel(loc, day)).toMatchObject({ requested: 1, sent: 1 });
  });

  it("drops a malformed rebuild message without retrying it", async () => {
    const ctx = createExecutionContext();
    const body = { kind: "rollup_rebuild", tenantId: w.tenantA.id, round: 0, cells: [["funnel", w.tenantA.id]] };
    const batch = createMessageBatch("events", [{ id: "odd", timestamp: new Date(), attempts: 1, body }]);
    await worker.queue(batch, env as unknown as Env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toEqual(["odd"]);
  });
});
