import { and, asc, eq } from "drizzle-orm";
import { auditEvents } from "../../src/db/schema";
import { db } from "../helpers/seed";

/** The audit rows written for one resource, oldest first. */
export const auditOf = (resourceId: string, action?: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, resourceId), action ? eq(auditEvents.action, action) : undefined))
    .orderBy(asc(auditEvents.occurredAt));
