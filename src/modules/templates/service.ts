import { and, count, eq, inArray, max } from "drizzle-orm";
import { type MessageChannel, type TemplateStatus, templates } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { Actor, ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, invalidTransition, notFound, type ValidationIssue, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { type TemplateContent, withSmsOptOut } from "./render";
import { type CreateTemplateInput, type TemplateRow, toTemplate, type UpdateTemplateInput } from "./schemas";
import { extractTokens, unknownTokens } from "./tokens";
import { customTokenKeys } from "./variables.service";

/**
 * The template state machine. `edit` of a draft changes it in place; of an approved template it
 * creates the next version as a draft. `fork` creates the next version as a draft. Archive works
 * from any state (archiving an archived template changes nothing).
 */
const MOVES = {
  edit: { from: ["draft", "approved"], to: "draft" },
  fork: { from: ["approved"], to: "draft" },
  approve: { from: ["draft"], to: "approved" },
  archive: { from: ["draft", "approved", "archived"], to: "archived" },
} as const satisfies Record<string, { from: readonly TemplateStatus[]; to: TemplateStatus }>;

function assertMove(move: keyof typeof MOVES, from: TemplateStatus) {
  const m = MOVES[move];
  if (!(m.from as readonly TemplateStatus[]).includes(from)) throw invalidTransition(from, m.to, "Template");
}

/** createdByUserId / approvedByUserId: the user, or a labelled credential for non-user actors. */
const actorRef = (a: Actor) =>
  a.type === "user" ? a.userId : a.type === "api_key" ? `api_key:${a.keyId}` : `system:${a.name}`;

export async function listTemplates(
  ctx: ServiceContext,
  q: PageQuery & { channel?: TemplateRow["channel"]; status?: TemplateStatus; rootId?: string },
) {
  const where = and(
    eq(templates.tenantId, ctx.tenantId),
    q.channel ? eq(templates.channel, q.channel) : undefined,
    q.status ? eq(templates.status, q.status) : undefined,
    q.rootId ? eq(templates.rootId, q.rootId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [templates.createdAt, templates.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(templates)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(templates).where(where),
    key: (t) => [t.createdAt, t.id],
    map: toTemplate,
  });
}

export async function findTemplateRow(ctx: ServiceContext, id: string): Promise<TemplateRow> {
  const row = await ctx.db
    .select()
    .from(templates)
    .where(and(eq(templates.id, id), eq(templates.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Template");
  return row;
}

export const getTemplate = async (ctx: ServiceContext, id: string) => toTemplate(await findTemplateRow(ctx, id));

/**
 * The approved version of the template's lineage, or null: what a send uses for a binding or a
 * sequence step that names any version of the template.
 */
export async function findApprovedVersion(ctx: ServiceContext, templateId: string): Promise<TemplateRow | null> {
  const t = await findTemplateRow(ctx, templateId);
  const row = await ctx.db
    .select()
    .from(templates)
    .where(and(eq(templates.tenantId, ctx.tenantId), eq(templates.rootId, t.rootId), eq(templates.status, "approved")))
    .get();
  return row ?? null;
}

export interface TemplateUse {
  /** where the reference sits in the request body, for the 400 */
  path: string;
  templateId: string;
  /** the channel it is used on; omitted when any channel will do (experiment variants) */
  channel?: MessageChannel;
}

/**
 * Templates referenced by a binding, a sequence step or an experiment variant: they must be this
 * tenant's, not archived, and on the channel they are used for (400 otherwise). Drafts are allowed: a send uses the
 * approved version of the template's lineage, so a draft starts being used once a version is approved.
 */
export async function usableTemplates(ctx: ServiceContext, uses: TemplateUse[]): Promise<Map<string, TemplateRow>> {
  const ids = [...new Set(uses.map((u) => u.templateId))];
  const rows = ids.length
    ? await ctx.db
        .select()
        .from(templates)
        .where(and(eq(templates.tenantId, ctx.tenantId), inArray(templates.id, ids)))
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const issues: ValidationIssue[] = uses.flatMap(({ path, templateId, channel }) => {
    const t = byId.get(templateId);
    if (!t) return [{ path, message: "Unknown template" }];
    if (t.status === "archived") return [{ path, message: "The template is archived" }];
    if (channel && t.channel !== channel)
      return [{ path, message: `The template is for ${t.channel}, not ${channel}` }];
    return [];
  });
  if (issues.length) throw validationError(issues);
  return byId;
}

const CONTENT_FIELDS = ["subject", "bodyHtml", "bodyText"] as const;

/** The placeholders of the content; unknown ones (neither built-in nor a location variable) are a 400. */
export async function checkedTokens(ctx: ServiceContext, content: TemplateContent): Promise<string[]> {
  const keys = await customTokenKeys(ctx);
  const issues: ValidationIssue[] = CONTENT_FIELDS.flatMap((field) =>
    unknownTokens(extractTokens(content[field]), keys).map((t) => ({ path: field, message: `Unknown token {{${t}}}` })),
  );
  if (issues.length) throw validationError(issues, "Unknown template tokens");
  return extractTokens(content.subject, content.bodyHtml, content.bodyText);
}

/**
 * The longest SMS body providers take: Twilio's Messages API refuses a body over 1,600 characters (error 21617,
 * https://www.twilio.com/docs/api/errors/21617); the opt-out line the send appends counts.
 */
export const MAX_SMS_CHARACTERS = 1600;

/** What approval needs besides known tokens: something to send on the template's channel, of a length it takes. */
function lintForApproval(t: TemplateRow): ValidationIssue[] {
  if (t.channel === "email") {
    return [
      ...(t.subject?.trim() ? [] : [{ path: "subject", message: "An email template needs a subject" }]),
      ...(t.bodyHtml?.trim() || t.bodyText?.trim()
        ? []
        : [{ path: "bodyHtml", message: "An email template needs bodyHtml or bodyText" }]),
    ];
  }
  if (!t.bodyText?.trim()) return [{ path: "bodyText", message: `A ${t.channel} template needs bodyText` }];
  const sent = t.channel === "sms" ? withSmsOptOut(t.bodyText) : t.bodyText;
  if (t.channel === "sms" && [...sent].length > MAX_SMS_CHARACTERS)
    return [
      {
        path: "bodyText",
        message: `An SMS is at most ${MAX_SMS_CHARACTERS.toLocaleString("en-US")} characters with its opt-out line; this one is ${[...sent].length.toLocaleString("en-US")} (providers refuse longer messages)`,
      },
    ];
  return [];
}

const draftExists = () => conflict("This template already has a draft version; edit or archive that draft first");

export async function createTemplate(ctx: ServiceContext, input: CreateTemplateInput) {
  const content = {
    subject: input.subject ?? null,
    bodyHtml: input.bodyHtml ?? null,
    bodyText: input.bodyText ?? null,
  };
  const tokens = await checkedTokens(ctx, content);
  const now = nowIso();
  const id = newId();
  const row: TemplateRow = {
    id,
    tenantId: ctx.tenantId,
    rootId: id,
    name: input.name,
    channel: input.channel,
    status: "draft",
    ...content,
    locale: input.locale ?? "en-US",
    version: 1,
    tokens,
    createdByUserId: actorRef(ctx.actor),
    approvedByUserId: null,
    approvedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(templates).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "template.created",
      resourceType: "template",
      resourceId: id,
      nextState: row,
    }),
  ]);
  return toTemplate(row);
}

/** Inserts the next version of `base`'s lineage as a draft carrying `content`. */
async function insertNextVersion(
  ctx: ServiceContext,
  base: TemplateRow,
  name: string,
  content: TemplateContent,
  action: string,
) {
  const tokens = await checkedTokens(ctx, content);
  const latest = await ctx.db
    .select({ v: max(templates.version) })
    .from(templates)
    .where(and(eq(templates.tenantId, ctx.tenantId), eq(templates.rootId, base.rootId)))
    .get();
  const now = nowIso();
  const row: TemplateRow = {
    ...base,
    ...content,
    id: newId(),
    name,
    status: "draft",
    version: (latest?.v ?? base.version) + 1,
    tokens,
    createdByUserId: actorRef(ctx.actor),
    approvedByUserId: null,
    approvedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await commit(ctx, [
      ctx.db.insert(templates).values(row),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action,
        resourceType: "template",
        resourceId: row.id,
        nextState: row,
        metadata: { fromTemplateId: base.id },
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw draftExists();
    throw e;
  }
  return toTemplate(row);
}

export async function updateTemplate(ctx: ServiceContext, id: string, patch: UpdateTemplateInput) {
  const before = await findTemplateRow(ctx, id);
  assertMove("edit", before.status);
  const content: TemplateContent = {
    subject: patch.subject !== undefined ? patch.subject : before.subject,
    bodyHtml: patch.bodyHtml !== undefined ? patch.bodyHtml : before.bodyHtml,
    bodyText: patch.bodyText !== undefined ? patch.bodyText : before.bodyText,
  };
  const name = patch.name ?? before.name;
  if (before.status === "approved") return insertNextVersion(ctx, before, name, content, "template.version_created");

  const tokens = await checkedTokens(ctx, content);
  const after: TemplateRow = { ...before, ...content, name, tokens, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .update(templates)
      .set({ ...content, name, tokens, updatedAt: after.updatedAt })
      .where(and(eq(templates.id, id), eq(templates.tenantId, ctx.tenantId), eq(templates.status, "draft"))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "template.updated",
      resourceType: "template",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toTemplate(after);
}

export async function forkTemplateVersion(ctx: ServiceContext, id: string) {
  const base = await findTemplateRow(ctx, id);
  assertMove("fork", base.status);
  return insertNextVersion(
    ctx,
    base,
    base.name,
    { subject: base.subject, bodyHtml: base.bodyHtml, bodyText: base.bodyText },
    "template.version_created",
  );
}

/** Approves a draft; the lineage's previously approved version (if any) is archived in the same batch. */
export async function approveTemplate(ctx: ServiceContext, id: string) {
  const before = await findTemplateRow(ctx, id);
  assertMove("approve", before.status);
  await checkedTokens(ctx, before);
  const issues = lintForApproval(before);
  if (issues.length) throw validationError(issues, "The template cannot be approved");

  const predecessor = await ctx.db
    .select()
    .from(templates)
    .where(
      and(eq(templates.tenantId, ctx.tenantId), eq(templates.rootId, before.rootId), eq(templates.status, "approved")),
    )
    .get();
  const now = nowIso();
  const after: TemplateRow = {
    ...before,
    status: "approved",
    approvedByUserId: actorRef(ctx.actor),
    approvedAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ...(predecessor
      ? [
          ctx.db
            .update(templates)
            .set({ status: "archived", updatedAt: now })
            .where(and(eq(templates.id, predecessor.id), eq(templates.tenantId, ctx.tenantId))),
          auditStatement(ctx, {
            tenantId: ctx.tenantId,
            action: "template.archived",
            resourceType: "template",
            resourceId: predecessor.id,
            previousState: { status: predecessor.status },
            nextState: { status: "archived" },
            metadata: { supersededBy: id },
          }),
        ]
      : []),
    ctx.db
      .update(templates)
      .set({ status: "approved", approvedByUserId: after.approvedByUserId, approvedAt: now, updatedAt: now })
      .where(and(eq(templates.id, id), eq(templates.tenantId, ctx.tenantId), eq(templates.status, "draft"))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "template.approved",
      resourceType: "template",
      resourceId: id,
      previousState: { status: before.status },
      nextState: { status: "approved", approvedByUserId: after.approvedByUserId, approvedAt: now },
      metadata: predecessor ? { supersedes: predecessor.id } : undefined,
    }),
  ]);
  return toTemplate(after);
}

export async function archiveTemplate(ctx: ServiceContext, id: string) {
  const before = await findTemplateRow(ctx, id);
  assertMove("archive", before.status);
  if (before.status === "archived") return toTemplate(before);
  const after: TemplateRow = { ...before, status: "archived", updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .update(templates)
      .set({ status: "archived", updatedAt: after.updatedAt })
      .where(and(eq(templates.id, id), eq(templates.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "template.archived",
      resourceType: "template",
      resourceId: id,
      previousState: { status: before.status },
      nextState: { status: "archived" },
    }),
  ]);
  return toTemplate(after);
}
