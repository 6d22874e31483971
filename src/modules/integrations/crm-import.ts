import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { backgroundJobs, integrations } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import { type CrmContact, crmClient, type FetchFn, isCrm } from "../../providers/crm";
import { ReviewSiteError } from "../../providers/review-sites";
import { UpsertContactBody } from "../contacts/schemas";
import { type PreparedContact, planUpserts, preparePhone, upsertStatements } from "../contacts/upsert";
import type { JobStep } from "../jobs/runner";
import type { JobMessage, JobRow } from "../jobs/schemas";
import { crmConnection, findIntegrationRow } from "./service";

/** Pages one queue message imports before it hands the cursor to a follow-up message. */
export const PAGES_PER_MESSAGE = 10;
/** Attempts of one message on a retryable CRM error (429, 5xx, network) before the job fails. */
export const MAX_ATTEMPTS = 5;

type Counts = { pages: number; fetched: number; imported: number; created: number; updated: number; skipped: number };
const ZERO: Counts = { pages: 0, fetched: 0, imported: 0, created: 0, updated: 0, skipped: 0 };

/** POST /v1/contacts/import/crm/{integrationId}: a queued job that pages the CRM's contacts. */
export async function requestCrmImport(ctx: ServiceContext, integrationId: string) {
  const row = await findIntegrationRow(ctx, integrationId);
  if (!isCrm(row.connectorType))
    throw validationError([
      { path: "integrationId", message: `${row.connectorType} is not a CRM (hubspot, salesforce)` },
    ]);
  if (!row.isEnabled) throw conflict("The integration is disabled");
  const now = nowIso();
  const job: JobRow = {
    id: `job_${newId()}`,
    tenantId: ctx.tenantId,
    type: "crm_import",
    status: "queued",
    subjectId: row.id,
    counts: { ...ZERO },
    cursor: null,
    error: null,
    createdByUserId: ctx.actor.type === "user" ? ctx.actor.userId : null,
    input: null,
    result: null,
    owner: null,
    startedAt: null,
    finishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(backgroundJobs).values(job),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "contact.crm_import_requested",
      resourceType: "job",
      resourceId: job.id,
      metadata: { integrationId: row.id, connectorType: row.connectorType },
    }),
  ]);
  await ctx.env.JOBS.send({ type: "crm_import", tenantId: ctx.tenantId, jobId: job.id } satisfies JobMessage);
  return { jobId: job.id, status: "queued" as const };
}

/** A CRM record -> a contact upsert, or null when it has neither a valid email nor phone. */
function toUpsert(c: CrmContact, system: string, meta: Record<string, unknown>): PreparedContact | null {
  const attempt = (input: Record<string, unknown>) => {
    const parsed = UpsertContactBody.safeParse(input);
    if (!parsed.success) return null;
    const prepared = preparePhone(parsed.data);
    return "message" in prepared ? null : prepared;
  };
  const base = {
    firstName: c.firstName?.slice(0, 100) ?? undefined,
    lastName: c.lastName?.slice(0, 100) ?? undefined,
    externalIds: { [system]: c.externalId },
    sourceMetadata: { [system]: { ...meta, id: c.externalId, createdAt: c.createdAt, updatedAt: c.updatedAt } },
  };
  // a bad phone or email alone does not lose the person: keep whichever field is valid
  return (
    attempt({ ...base, email: c.email ?? undefined, phone: c.phone ?? undefined }) ??
    (c.email ? attempt({ ...base, email: c.email }) : null) ??
    (c.phone ? attempt({ ...base, phone: c.phone }) : null)
  );
}

async function storePage(
  ctx: ServiceContext,
  job: JobRow,
  system: string,
  integrationId: string,
  page: CrmContact[],
  cursor: string | null,
  counts: Counts,
  retried = false,
): Promise<Counts> {
  const now = nowIso();
  const meta = { integrationId, jobId: job.id, importedAt: now };
  const inputs = page.map((c) => toUpsert(c, system, meta));
  const valid = inputs.filter((x): x is PreparedContact => x !== null);
  const plan = await planUpserts(ctx, valid, now);
  const applied = plan.outcomes.filter((o) => !("error" in o)).length;
  const created = plan.rows.filter((r) => !plan.before.has(r.id)).map((r) => r.id);
  const updated = plan.rows.filter((r) => plan.before.has(r.id)).map((r) => r.id);
  const next: Counts = {
    pages: counts.pages + 1,
    fetched: counts.fetched + page.length,
    imported: counts.imported + applied,
    created: counts.created + created.length,
    updated: counts.updated + updated.length,
    skipped: counts.skipped + page.length - applied,
  };
  try {
    await commit(ctx, [
      ...upsertStatements(ctx, plan.rows),
      // the cursor moves in the same batch as the page: a redelivered message resumes after it
      ctx.db
        .update(backgroundJobs)
        .set({ counts: next, cursor, updatedAt: now })
        .where(and(eq(backgroundJobs.id, job.id), eq(backgroundJobs.tenantId, job.tenantId))),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "contact.imported",
        resourceType: "contact_import",
        resourceId: job.id,
        nextState: {
          source: system,
          integrationId,
          page: next.pages,
          fetched: page.length,
          imported: applied,
          skipped: page.length - applied,
          created,
          updated,
        },
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e) && !retried) return storePage(ctx, job, system, integrationId, page, cursor, counts, true);
    throw e;
  }
  return next;
}

async function finish(
  ctx: ServiceContext,
  job: JobRow,
  set: Partial<JobRow>,
  integrationSet?: Partial<typeof integrations.$inferSelect>,
) {
  const now = nowIso();
  const statements: BatchItem<"sqlite">[] = [
    ctx.db
      .update(backgroundJobs)
      .set({ ...set, finishedAt: now, updatedAt: now })
      .where(and(eq(backgroundJobs.id, job.id), eq(backgroundJobs.tenantId, job.tenantId))),
  ];
  if (integrationSet && job.subjectId) {
    statements.push(
      ctx.db
        .update(integrations)
        .set({ ...integrationSet, updatedAt: now })
        .where(and(eq(integrations.id, job.subjectId), eq(integrations.tenantId, job.tenantId))),
    );
  }
  await commit(ctx, statements);
}

/**
 * Works one JOBS message of a crm_import: up to PAGES_PER_MESSAGE pages from the stored cursor.
 * Finished jobs are skipped (redelivery is harmless); retryable CRM errors ask for a retry until
 * MAX_ATTEMPTS, other errors fail the job with the CRM's message.
 */
export async function runCrmImport(env: Env, msg: JobMessage, attempt: number, fetchFn: FetchFn): Promise<JobStep> {
  const ctx = await systemContext(env, msg.tenantId, "crm-import");
  let job = await ctx.db
    .select()
    .from(backgroundJobs)
    .where(and(eq(backgroundJobs.id, msg.jobId), eq(backgroundJobs.tenantId, msg.tenantId)))
    .get();
  if (!job || job.status === "succeeded" || job.status === "failed") return { kind: "skipped" };
  const row = await ctx.db
    .select()
    .from(integrations)
    .where(and(eq(integrations.id, job.subjectId ?? ""), eq(integrations.tenantId, msg.tenantId)))
    .get();
  const conn = row ? await crmConnection(env, row) : null;
  if (!row || !conn) {
    await finish(ctx, job, { status: "failed", error: "The integration no longer exists or is not a CRM" });
    return { kind: "done" };
  }
  if (job.status === "queued") {
    const startedAt = nowIso();
    await ctx.db
      .update(backgroundJobs)
      .set({ status: "running", startedAt, updatedAt: startedAt })
      .where(eq(backgroundJobs.id, job.id));
    job = { ...job, status: "running", startedAt };
  }
  const client = crmClient(conn, fetchFn);
  let counts = { ...ZERO, ...(job.counts as Partial<Counts>) };
  let cursor = job.cursor;
  try {
    for (let pages = 0; pages < PAGES_PER_MESSAGE; pages++) {
      const page = await client.listContacts(cursor);
      counts = await storePage(ctx, job, conn.connectorType, row.id, page.contacts, page.nextCursor, counts);
      cursor = page.nextCursor;
      if (!cursor) {
        await finish(
          ctx,
          job,
          { status: "succeeded", counts, cursor: null, error: null },
          { lastSyncAt: job.startedAt, lastSyncStatus: "ok", lastSyncError: null },
        );
        return { kind: "done" };
      }
    }
    return { kind: "continue" };
  } catch (err) {
    if (err instanceof ReviewSiteError) {
      if (err.retryable && attempt < MAX_ATTEMPTS) {
        await ctx.db
          .update(integrations)
          .set({ lastSyncStatus: err.rateLimited ? "rate_limited" : "error", lastSyncError: err.message })
          .where(eq(integrations.id, row.id));
        return { kind: "retry", delaySeconds: err.retryAfterSeconds };
      }
      await finish(
        ctx,
        job,
        { status: "failed", error: err.message },
        { lastSyncStatus: err.rateLimited ? "rate_limited" : "error", lastSyncError: err.message },
      );
      return { kind: "done" };
    }
    throw err;
  }
}
