import { env } from "cloudflare:workers";
import { and, asc, eq } from "drizzle-orm";
import { auditEvents } from "../../src/db/schema";
import { type ServiceContext, SYSTEM_META } from "../../src/lib/context";
import { control, db } from "../helpers/seed";

/** The audit rows written for one resource, oldest first. */
export const auditOf = (resourceId: string, action?: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, resourceId), action ? eq(auditEvents.action, action) : undefined))
    .orderBy(asc(auditEvents.occurredAt));

/** A service context in the given tenant acting as a system job, for calling services directly. */
export const tenantCtx = (tenantId: string): ServiceContext => ({
  db: db(),
  control: control(),
  env,
  tenantId,
  actor: { type: "system", name: "test" },
  meta: SYSTEM_META,
  defer: () => {},
});
