import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { contacts } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import type { ValidationIssue } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { chunkByParams, inJson } from "../../lib/sql";
import { mergePatch } from "./merge-patch";
import { nameKeys, toE164 } from "./normalize";
import type { ContactRow, UpsertContactInput } from "./schemas";

/** A validated upsert whose phone is already E.164. undefined = not given (keep), null = clear. */
export type PreparedContact = Omit<UpsertContactInput, "phone"> & { phone?: string | null };

export function preparePhone(input: UpsertContactInput): PreparedContact | ValidationIssue {
  if (!input.phone) return input as PreparedContact;
  const phone = toE164(input.phone, input.locale);
  return phone ? { ...input, phone } : { path: "phone", message: "Invalid phone number" };
}

export type UpsertOutcome = { id: string; created: boolean } | { error: string };

export interface UpsertPlan {
  /** the final state of every touched contact, in first-touched order */
  rows: ContactRow[];
  before: Map<string, ContactRow>;
  outcomes: UpsertOutcome[];
}

export const DIFFERENT_CONTACTS = "email and phone belong to different contacts";

/** Existing contacts of the tenant holding any of these emails or phones: two index lookups, one round trip. */
async function findExisting(ctx: ServiceContext, emails: string[], phones: string[]) {
  const [byEmail, byPhone] = await ctx.db.batch([
    ctx.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.tenantId, ctx.tenantId), inJson(contacts.email, emails))),
    ctx.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.tenantId, ctx.tenantId), inJson(contacts.phone, phones))),
  ]);
  return [...byEmail, ...byPhone];
}

const blank = (ctx: ServiceContext, id: string, now: string): ContactRow => ({
  id,
  tenantId: ctx.tenantId,
  email: null,
  phone: null,
  firstName: null,
  lastName: null,
  locale: null,
  timezone: null,
  isSuppressed: false,
  suppressedAt: null,
  suppressionReason: null,
  externalIds: {},
  sourceMetadata: {},
  nameKey: null,
  nameKeyReversed: null,
  lastActivityAt: now,
  anonymizedAt: null,
  createdAt: now,
  updatedAt: now,
});

const FIELDS = ["email", "phone", "firstName", "lastName", "locale", "timezone"] as const;

function apply(row: ContactRow, input: PreparedContact, now: string): ContactRow {
  const next = { ...row, updatedAt: now, lastActivityAt: now };
  for (const f of FIELDS) if (input[f] !== undefined) next[f] = input[f];
  if (input.externalIds) next.externalIds = mergePatch(row.externalIds, input.externalIds);
  if (input.sourceMetadata) next.sourceMetadata = mergePatch(row.sourceMetadata, input.sourceMetadata);
  return { ...next, ...nameKeys(next.firstName, next.lastName) };
}

/**
 * Resolves every input to a contact id (match on email first, then phone; later inputs see the
 * effect of earlier ones) and computes each contact's final state. Reads only; nothing is written.
 */
export async function planUpserts(ctx: ServiceContext, inputs: PreparedContact[], now: string): Promise<UpsertPlan> {
  const emails = inputs.flatMap((i) => (i.email ? [i.email] : []));
  const phones = inputs.flatMap((i) => (i.phone ? [i.phone] : []));
  const existing = await findExisting(ctx, emails, phones);

  const before = new Map(existing.map((c) => [c.id, c]));
  const byEmail = new Map(existing.flatMap((c) => (c.email ? [[c.email, c.id] as const] : [])));
  const byPhone = new Map(existing.flatMap((c) => (c.phone ? [[c.phone, c.id] as const] : [])));
  const states = new Map<string, ContactRow>();

  const reindex = (index: Map<string, string>, id: string, old: string | null, next: string | null) => {
    if (old === next) return;
    if (old && index.get(old) === id) index.delete(old);
    if (next) index.set(next, id);
  };

  const outcomes = inputs.map((input): UpsertOutcome => {
    const idByEmail = input.email ? byEmail.get(input.email) : undefined;
    const idByPhone = input.phone ? byPhone.get(input.phone) : undefined;
    if (idByEmail && idByPhone && idByEmail !== idByPhone) return { error: DIFFERENT_CONTACTS };
    const matched = idByEmail ?? idByPhone;
    const id = matched ?? newId();
    const current = states.get(id) ?? before.get(id) ?? blank(ctx, id, now);
    const next = apply(current, input, now);
    reindex(byEmail, id, current.email, next.email);
    reindex(byPhone, id, current.phone, next.phone);
    states.set(id, next);
    return { id, created: !matched };
  });
  return { rows: [...states.values()], before, outcomes };
}

/** null -> undefined, so drizzle writes a literal NULL instead of binding a parameter. */
const compact = (row: ContactRow) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v ?? undefined])) as typeof contacts.$inferInsert;

const excluded = (column: string) => sql.raw(`excluded.${column}`);

/**
 * Multi-row upserts keyed on the id resolved by planUpserts. An update never touches suppression
 * (a concurrent suppress wins) and never writes into a contact erased in the meantime.
 */
export function upsertStatements(ctx: ServiceContext, rows: ContactRow[]): BatchItem<"sqlite">[] {
  return chunkByParams(rows.map(compact)).map((chunk) =>
    ctx.db
      .insert(contacts)
      .values(chunk)
      .onConflictDoUpdate({
        target: contacts.id,
        set: {
          email: excluded("email"),
          phone: excluded("phone"),
          firstName: excluded("first_name"),
          lastName: excluded("last_name"),
          locale: excluded("locale"),
          timezone: excluded("timezone"),
          externalIds: excluded("external_ids"),
          sourceMetadata: excluded("source_metadata"),
          nameKey: excluded("name_key"),
          nameKeyReversed: excluded("name_key_reversed"),
          lastActivityAt: excluded("last_activity_at"),
          updatedAt: excluded("updated_at"),
        },
        setWhere: sql`${contacts.anonymizedAt} is null and ${contacts.tenantId} = excluded.tenant_id`,
      }),
  );
}
