import { and, eq } from "drizzle-orm";
import { backgroundJobs } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { toJob } from "./schemas";

export async function getJob(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(backgroundJobs)
    .where(and(eq(backgroundJobs.id, id), eq(backgroundJobs.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Job");
  return toJob(row);
}
