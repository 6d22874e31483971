import { and, asc, count, eq, gt } from "drizzle-orm";
import { backgroundJobs, exportChunks } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { forbidden, notFound } from "../../lib/errors";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { getComplianceConfig } from "../compliance/service";
import { requestTenantExport } from "./job";
import { toTenantExport } from "./schemas";

/** allowDataExport (ComplianceConfig) switches the whole-tenant export off, like the per-contact one. */
async function assertExportAllowed(ctx: ServiceContext) {
  if (!(await getComplianceConfig(ctx)).allowDataExport)
    throw forbidden(
      "Data export is disabled in this tenant's compliance settings (allowDataExport)",
      "export_disabled",
    );
}

/** POST /v1/exports and tenant.export: the job, queued. */
export async function startTenantExport(ctx: ServiceContext, owner: string | null = null) {
  await assertExportAllowed(ctx);
  return requestTenantExport(ctx, owner);
}

/** The caller's tenant's export job, or 404 (another tenant's id, or a job of another kind). */
async function findExport(ctx: ServiceContext, id: string) {
  const job = await ctx.db
    .select()
    .from(backgroundJobs)
    .where(
      and(
        eq(backgroundJobs.id, id),
        eq(backgroundJobs.tenantId, ctx.tenantId),
        eq(backgroundJobs.type, "tenant_export"),
      ),
    )
    .get();
  if (!job) throw notFound("Export");
  return job;
}

/** GET /v1/exports: the tenant's exports, newest first, each as GET /v1/exports/{id} shows it. */
export async function listTenantExports(ctx: ServiceContext, q: PageQuery) {
  const where = and(eq(backgroundJobs.tenantId, ctx.tenantId), eq(backgroundJobs.type, "tenant_export"));
  return keysetPage(ctx.db, {
    query: q,
    sort: [backgroundJobs.createdAt, backgroundJobs.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(backgroundJobs)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(backgroundJobs).where(where),
    key: (r) => [r.createdAt, r.id],
    map: (r) => toTenantExport(r),
  });
}

export const getTenantExport = async (ctx: ServiceContext, id: string) => toTenantExport(await findExport(ctx, id));

/**
 * GET /v1/exports/{id}/download: the JSON Lines, slice by slice (a stream, never the whole file in
 * memory). 404 until it succeeded and after it expired (the expired slices are deleted then).
 */
export async function downloadTenantExport(ctx: ServiceContext, id: string) {
  const job = await findExport(ctx, id);
  const view = toTenantExport(job);
  if (!view.downloadUrl) {
    if (job.status === "succeeded")
      await ctx.db.delete(exportChunks).where(and(eq(exportChunks.tenantId, ctx.tenantId), eq(exportChunks.jobId, id)));
    throw notFound(job.status === "succeeded" ? "Export (expired)" : "Export file (not finished)");
  }
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "tenant_export.downloaded",
      resourceType: "tenant_export",
      resourceId: id,
      metadata: { rows: view.progress.done },
    }),
  ]);
  const encoder = new TextEncoder();
  let seq = -1;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await ctx.db
        .select({ seq: exportChunks.seq, body: exportChunks.body })
        .from(exportChunks)
        .where(and(eq(exportChunks.tenantId, ctx.tenantId), eq(exportChunks.jobId, id), gt(exportChunks.seq, seq)))
        .orderBy(asc(exportChunks.seq))
        .limit(1)
        .get();
      if (!chunk) return controller.close();
      seq = chunk.seq;
      controller.enqueue(encoder.encode(chunk.body));
    },
  });
  return { body, fileName: `tenant-export-${ctx.tenantId}-${(job.finishedAt ?? "").slice(0, 10)}.jsonl` };
}
