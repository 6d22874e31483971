import type { BatchItem } from "drizzle-orm/batch";
import { commit, type PendingEvent } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { dispatchEvents } from "../../lib/events";

const EVENT_IDS_PER_DISPATCH = 90; // dispatchEvents binds one parameter per id

/** Hands committed events to the EVENTS queue in chunks dispatchEvents can bind; the stale-event sweep covers a failure. */
export function dispatchInChunks(ctx: Pick<ServiceContext, "db" | "env" | "defer">, eventIds: string[]) {
  for (let i = 0; i < eventIds.length; i += EVENT_IDS_PER_DISPATCH) {
    ctx.defer(dispatchEvents(ctx.db, ctx.env, eventIds.slice(i, i + EVENT_IDS_PER_DISPATCH)).catch(() => undefined));
  }
}

/** commit() for changes that may carry more events than one dispatch can bind (a webhook, a queue batch). */
export async function commitWithEvents(ctx: Pick<ServiceContext, "db" | "env" | "defer">, statements: BatchItem<"sqlite">[], events: PendingEvent[]) {
  await commit(ctx, [...statements, ...events.map((e) => e.statement)]);
  dispatchInChunks(ctx, events.map((e) => e.event.id));
}
