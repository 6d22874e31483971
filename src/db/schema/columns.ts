import { text } from "drizzle-orm/sqlite-core";

/** ISO 8601 timestamps as text: they sort lexicographically, which keyset pagination relies on. */
export const timestamp = (name: string) => text(name);
export const createdAt = () => text("created_at").notNull();
export const updatedAt = () => text("updated_at").notNull();
export const jsonObject = (name: string) =>
  text(name, { mode: "json" }).$type<Record<string, unknown>>().notNull().default({});
