import type { EventHandler } from "../../background/events";
import type { ShardDb } from "../../db/client";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { purgeWidgets } from "./cache";
import { widgetKeysFor } from "./data";

/** Events that change what a widget shows. */
const REVIEW_EVENTS = new Set(["review.created", "review.updated"]);

/**
 * Purges the widgets that may show a new or changed review: the location's own widgets and the
 * tenant-wide ones, one D1 read per queue batch. Reaches this isolate and this data centre's cache;
 * elsewhere the cache TTLs apply (docs/widgets.md).
 */
export async function purgeWidgetsForReviews(events: EventEnvelope[], env: Env, shard: ShardDb): Promise<void> {
  const pairs = [
    ...new Map(
      events.map((e) => [
        `${e.tenantId}/${e.data.locationId}`,
        { tenantId: e.tenantId, locationId: (e.data.locationId as string | undefined) ?? null },
      ]),
    ).values(),
  ];
  const keys = await widgetKeysFor(shard, pairs);
  await purgeWidgets(env.PUBLIC_BASE_URL, keys);
}

export const widgetCacheHandler: EventHandler = {
  name: "widget-cache",
  // no read: the type alone decides, and other events get no processed mark
  select: async () => (e) => REVIEW_EVENTS.has(e.type),
  handleBatch: purgeWidgetsForReviews,
};
