import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** redirect: the link opened; qr: opened by scanning its QR code (`?src=qr`); api: PATCH .../click */
export const CLICK_SOURCES = ["redirect", "qr", "api"] as const;

/**
 * One row per recorded short-link click (no personal data: who clicked is the solicitation's
 * contact). The id is minted when the click is answered, so a redelivered queue message inserts
 * nothing new.
 */
export const linkClicks = sqliteTable(
  "link_clicks",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    solicitationId: text("solicitation_id").notNull(),
    source: text("source", { enum: CLICK_SOURCES }).notNull(),
    clickedAt: text("clicked_at").notNull(),
  },
  (t) => [
    index("link_clicks_solicitation_idx").on(t.solicitationId, t.clickedAt),
    index("link_clicks_tenant_idx").on(t.tenantId, t.clickedAt),
  ],
);
