import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import {
  messagingSettings,
  PLATFORM_TEMPLATE_SCOPE,
  type WhatsAppTemplateRow,
  whatsappTemplates,
} from "../../db/schema";
import { controlDb, tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import { type ServiceContext, SYSTEM_META } from "../../lib/context";
import { DateTime } from "../../lib/openapi";
import { nowIso } from "../../lib/time";
import type { TemplateUpdate } from "../../providers/messaging/callbacks/meta-templates";
import { effectiveCategory, templateKey, UNSENDABLE_TEMPLATE_STATUSES } from "../../providers/messaging/template-store";

export const WhatsAppTemplateStateSchema = z
  .object({
    provider: z.string().openapi({ example: "meta" }),
    name: z.string().openapi({ example: "review_request" }),
    language: z.string().openapi({ example: "en_us" }),
    providerTemplateId: z.string().nullable(),
    status: z.string().nullable().openapi({
      description: "Meta's last template event: APPROVED, PAUSED, REJECTED, DISABLED, FLAGGED, REINSTATED, ...",
    }),
    reason: z.string().nullable(),
    category: z
      .string()
      .nullable()
      .openapi({ description: "MARKETING, UTILITY or AUTHENTICATION, as categorised now" }),
    pendingCategory: z
      .string()
      .nullable()
      .openapi({ description: "a re-categorisation Meta announced, effective at pendingCategoryAt" }),
    pendingCategoryAt: DateTime.nullable(),
    sendable: z
      .boolean()
      .openapi({ description: "false while Meta will not send it (paused, disabled, rejected, deleted)" }),
    updatedAt: DateTime,
  })
  .openapi("WhatsAppTemplateState");

const toDto = (r: WhatsAppTemplateRow, now: Date) => ({
  provider: r.provider,
  name: r.name,
  language: r.language,
  providerTemplateId: r.providerTemplateId,
  status: r.status,
  reason: r.reason,
  category: effectiveCategory(r, now),
  pendingCategory: r.pendingCategoryAt && r.pendingCategoryAt <= now.toISOString() ? null : r.pendingCategory,
  pendingCategoryAt: r.pendingCategoryAt && r.pendingCategoryAt <= now.toISOString() ? null : r.pendingCategoryAt,
  sendable: !(r.status && UNSENDABLE_TEMPLATE_STATUSES.has(r.status)),
  updatedAt: r.updatedAt,
});

/** GET /v1/settings/whatsapp/templates: the states Meta reported for the tenant's own WhatsApp account's templates. */
export async function listWhatsAppTemplates(ctx: ServiceContext) {
  const rows = await ctx.db
    .select()
    .from(whatsappTemplates)
    .where(eq(whatsappTemplates.tenantId, ctx.tenantId))
    .orderBy(whatsappTemplates.name, whatsappTemplates.language)
    .limit(500);
  const now = new Date();
  return { data: rows.map((r) => toDto(r, now)) };
}

/**
 * Where a Meta webhook's template changes belong: the tenant's own WhatsApp account when the URL
 * names a tenant that has one (its shard), else the platform's account (the control database).
 */
async function templateScope(env: Env, tenantId: string | null): Promise<{ db: Db; scope: string }> {
  if (tenantId) {
    const db = await tenantDb(env, tenantId);
    const own = await db
      .select({ provider: messagingSettings.provider })
      .from(messagingSettings)
      .where(
        and(
          eq(messagingSettings.tenantId, tenantId),
          eq(messagingSettings.channel, "whatsapp"),
          eq(messagingSettings.provider, "meta"),
        ),
      )
      .get();
    if (own) return { db, scope: tenantId };
  }
  return { db: controlDb(env), scope: PLATFORM_TEMPLATE_SCOPE };
}

type Patch = Partial<WhatsAppTemplateRow>;

/** The fields an update changes, or null when it is older than what is stored or changes nothing (a redelivery). */
function patchOf(u: TemplateUpdate, row: WhatsAppTemplateRow | undefined): Patch | null {
  const base: Patch = u.providerTemplateId ? { providerTemplateId: u.providerTemplateId } : {};
  if (u.kind === "status") {
    if (row?.statusAt && row.statusAt > u.at) return null;
    const next: Patch = {
      ...base,
      status: u.status,
      reason: u.reason,
      statusAt: u.at,
      ...(u.category ? { category: u.category } : {}),
    };
    if (row && row.status === next.status && row.reason === next.reason && (!u.category || row.category === u.category))
      return null;
    return next;
  }
  if (row?.categoryAt && row.categoryAt > u.at) return null;
  const next: Patch = u.pendingCategory
    ? {
        ...base,
        category: u.category ?? row?.category ?? null,
        pendingCategory: u.pendingCategory,
        pendingCategoryAt: u.pendingAt,
        categoryAt: u.at,
      }
    : { ...base, category: u.category, pendingCategory: null, pendingCategoryAt: null, categoryAt: u.at };
  if (
    row &&
    row.category === next.category &&
    row.pendingCategory === next.pendingCategory &&
    row.pendingCategoryAt === next.pendingCategoryAt
  )
    return null;
  return next;
}

/**
 * Applies Meta's template status and category changes: an upsert per template, conditional on the
 * event being newer than what is stored (out-of-order redeliveries change nothing), each change
 * audited (whatsapp_template.updated, actor webhook:meta) in the same batch. Returns how many changed.
 */
export async function applyTemplateUpdates(
  env: Env,
  defer: (p: Promise<unknown>) => void,
  tenantId: string | null,
  updates: TemplateUpdate[],
): Promise<number> {
  if (!updates.length) return 0;
  const { db, scope } = await templateScope(env, tenantId);
  const existing = new Map(
    (
      await db
        .select()
        .from(whatsappTemplates)
        .where(and(eq(whatsappTemplates.tenantId, scope), eq(whatsappTemplates.provider, "meta")))
    ).map((r) => [`${r.name}\u0000${r.language}`, r]),
  );
  const statements: BatchItem<"sqlite">[] = [];
  const now = nowIso();
  const source = { db, actor: { type: "system" as const, name: "webhook:meta" }, meta: SYSTEM_META };
  for (const u of updates) {
    const k = templateKey(u.name, u.language);
    const id = `${k.name}\u0000${k.language}`;
    const row = existing.get(id);
    const patch = patchOf(u, row);
    if (!patch) continue;
    const next: WhatsAppTemplateRow = {
      tenantId: scope,
      provider: "meta",
      name: k.name,
      language: k.language,
      providerTemplateId: null,
      status: null,
      reason: null,
      category: null,
      pendingCategory: null,
      pendingCategoryAt: null,
      statusAt: null,
      categoryAt: null,
      ...row,
      ...patch,
      updatedAt: now,
    };
    existing.set(id, next);
    // newer-wins again in SQL, for a concurrent delivery of another event of the same template
    const newer =
      u.kind === "status"
        ? "excluded.status_at >= coalesce(whatsapp_templates.status_at, '')"
        : "excluded.category_at >= coalesce(whatsapp_templates.category_at, '')";
    const { tenantId: _t, provider: _p, name: _n, language: _l, ...set } = next;
    statements.push(
      db
        .insert(whatsappTemplates)
        .values(next)
        .onConflictDoUpdate({
          target: [
            whatsappTemplates.tenantId,
            whatsappTemplates.provider,
            whatsappTemplates.name,
            whatsappTemplates.language,
          ],
          set,
          setWhere: sql.raw(newer),
        }),
      auditStatement(source, {
        tenantId: scope === PLATFORM_TEMPLATE_SCOPE ? null : scope,
        action: "whatsapp_template.updated",
        resourceType: "whatsapp_template",
        resourceId: `${k.name}:${k.language}`,
        previousState: row ?? null,
        nextState: next,
        metadata: { provider: "meta", kind: u.kind, at: u.at },
      }),
    );
  }
  await commit({ db, env, defer }, statements);
  return statements.length / 2;
}
