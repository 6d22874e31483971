import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

/** Messages that exhausted their retries, kept so they can be inspected, counted and replayed. */
export const deadLetters = sqliteTable(
  "dead_letters",
  {
    id: text("id").primaryKey(),
    queue: text("queue").notNull(),
    messageId: text("message_id").notNull().unique(),
    body: text("body", { mode: "json" }).notNull(),
    attempts: integer("attempts").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("dead_letters_created_idx").on(t.createdAt)],
);
