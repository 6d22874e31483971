import { z } from "@hono/zod-openapi";
import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import { brands, locations, regions } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { MAX_CSV_ROWS, parseCsvTable } from "../../lib/csv";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { inJson } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { CountryCode, Email, HttpUrl, TimeZone } from "../../lib/validators";
import type { LocationRow } from "./schemas";
import { tooLarge } from "./upload";

const text = (max = 255) => z.string().trim().max(max).nullable();

/** One CSV row after blank cells became null. */
const RowSchema = z.object({
  name: z.string().trim().min(1).max(200),
  brand: text(),
  region: text(),
  externalId: text(),
  addressLine1: text(),
  addressLine2: text(),
  city: text(120),
  state: text(120),
  postalCode: text(20),
  country: CountryCode.nullable(),
  timezone: TimeZone.nullable(),
  phone: text(32),
  email: Email.nullable(),
  websiteUrl: HttpUrl.nullable(),
  googlePlaceId: text(),
  yelpBusinessId: text(),
  facebookPageId: text(),
  latitude: z.coerce.number().min(-90).max(90).nullable(),
  longitude: z.coerce.number().min(-180).max(180).nullable(),
});
type Row = z.infer<typeof RowSchema>;
type Field = keyof Row;

/** Blank cells in these columns keep the current value (or the default on insert) instead of clearing. */
const KEEP_IF_BLANK = new Set<Field>(["country", "timezone"]);

/** Columns written straight to a location column (brand and region are resolved to ids). */
const DIRECT: Exclude<Field, "brand" | "region">[] = [
  "name",
  "externalId",
  "addressLine1",
  "addressLine2",
  "city",
  "state",
  "postalCode",
  "country",
  "timezone",
  "phone",
  "email",
  "websiteUrl",
  "googlePlaceId",
  "yelpBusinessId",
  "facebookPageId",
  "latitude",
  "longitude",
];

const normalise = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, "");
/** Header aliases, compared lower-cased without separators (address_line1 = addressLine1). */
const HEADER_ALIASES: Record<string, Field> = {
  ...Object.fromEntries((Object.keys(RowSchema.shape) as Field[]).map((f) => [normalise(f), f])),
  brandslug: "brand",
  brandid: "brand",
  regionid: "region",
  regionname: "region",
  regioncode: "region",
  lat: "latitude",
  lng: "longitude",
  lon: "longitude",
  zip: "postalCode",
  website: "websiteUrl",
};

export interface BulkResult {
  imported: number;
  updated: number;
  errors: { row: number; reason: string }[];
}

/** Each location write statement carries this many rows as one JSON parameter (json_each). */
const ROWS_PER_STATEMENT = 100;

interface Prepared {
  data: Row & { brandId: string | null; regionId: string | null };
}

/**
 * CSV import of locations: upsert on externalId (rows without one are always new). Columns present
 * in the header are written (a blank cell clears the value; blank brand, country or timezone keeps
 * the current value, or the default on insert); absent columns are left alone. Invalid rows are
 * reported and skipped; the valid rows and one summary audit row commit in one batch.
 */
export async function importLocationsCsv(ctx: ServiceContext, csv: string): Promise<BulkResult> {
  const parsed = parseCsvTable(csv, { transformHeader: (h) => h.trim() });
  const headerFields = new Map<string, Field>();
  for (const h of parsed.fields) {
    const field = HEADER_ALIASES[normalise(h)];
    if (field) headerFields.set(h, field);
  }
  const present = new Set(headerFields.values());
  if (!present.has("name"))
    throw validationError([{ path: "file", message: "The CSV needs a header row with at least a 'name' column" }]);
  if (parsed.overLimit) throw tooLarge(`The file has more than ${MAX_CSV_ROWS} rows`);

  const refs = await loadRefs(ctx);
  const errors: BulkResult["errors"] = [];
  const prepared: Prepared[] = [];
  const seenExternal = new Map<string, number>();
  for (const [i, cells] of parsed.rows.entries()) {
    const rowNo = i + 1;
    const raw = Object.fromEntries(
      (Object.keys(RowSchema.shape) as Field[]).map((f) => [f, null as string | null]),
    ) as Record<Field, string | null>;
    for (const [header, field] of headerFields) {
      const v = (cells[header] ?? "").trim();
      raw[field] = v === "" ? null : v;
    }
    const check = RowSchema.safeParse(raw);
    if (!check.success) {
      errors.push({
        row: rowNo,
        reason: check.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; "),
      });
      continue;
    }
    const data = check.data;
    const brandId = data.brand ? refs.brand(data.brand) : null;
    if (data.brand && !brandId) {
      errors.push({ row: rowNo, reason: `brand: unknown brand '${data.brand}'` });
      continue;
    }
    const regionId = data.region ? refs.region(data.region) : null;
    if (data.region && !regionId) {
      errors.push({ row: rowNo, reason: `region: unknown region '${data.region}'` });
      continue;
    }
    if (data.externalId) {
      const first = seenExternal.get(data.externalId);
      if (first) {
        errors.push({ row: rowNo, reason: `externalId: duplicate of row ${first}` });
        continue;
      }
      seenExternal.set(data.externalId, rowNo);
    }
    prepared.push({ data: { ...data, brandId, regionId } });
  }

  const existing = await existingByExternalId(ctx, [...seenExternal.keys()]);
  const now = nowIso();
  let imported = 0;
  let updated = 0;
  const rows: LocationRow[] = [];
  for (const p of prepared) {
    const current = p.data.externalId ? existing.get(p.data.externalId) : undefined;
    if (current) updated++;
    else imported++;
    const next = merge(current, p.data, present, ctx.tenantId, refs.defaultBrandId, now);
    if (!next.brandId)
      throw validationError([{ path: "brand", message: "The tenant has no active brand; give a brand column" }]);
    rows.push(next);
  }
  const result = { imported, updated, errors };
  if (rows.length === 0) return result;
  try {
    await commit(ctx, [
      ...chunks(rows, ROWS_PER_STATEMENT).map((chunk) => upsertStatement(ctx, chunk)),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "location.bulk_imported",
        resourceType: "location",
        resourceId: "bulk",
        nextState: { imported, updated, failedRows: errors.length, columns: [...present] },
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict("Another import wrote the same externalId at the same time; retry");
    throw e;
  }
  return result;
}

const NULL_LOCATION = {
  regionId: null,
  externalId: null,
  addressLine1: null,
  addressLine2: null,
  city: null,
  state: null,
  postalCode: null,
  phone: null,
  email: null,
  websiteUrl: null,
  googleMyBusinessUrl: null,
  googlePlaceId: null,
  yelpUrl: null,
  yelpBusinessId: null,
  facebookUrl: null,
  facebookPageId: null,
  latitude: null,
  longitude: null,
};

/** The row to write: the current one (or defaults) overlaid with the columns the file has. */
function merge(
  current: LocationRow | undefined,
  data: Prepared["data"],
  present: Set<Field>,
  tenantId: string,
  defaultBrandId: string | null,
  now: string,
): LocationRow {
  const base: LocationRow = current ?? {
    ...NULL_LOCATION,
    id: newId(),
    tenantId,
    brandId: defaultBrandId ?? "",
    name: data.name,
    country: "US",
    timezone: "UTC",
    locale: "en-US",
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  const next: LocationRow = { ...base, updatedAt: now };
  for (const f of DIRECT) {
    if (!present.has(f)) continue;
    if (KEEP_IF_BLANK.has(f) && data[f] === null) continue;
    (next as Record<string, unknown>)[f] = data[f];
  }
  if (present.has("brand") && data.brandId) next.brandId = data.brandId;
  if (present.has("region")) next.regionId = data.regionId;
  return next;
}

async function loadRefs(ctx: ServiceContext) {
  const [brandRows, regionRows] = await ctx.db.batch([
    ctx.db
      .select({ id: brands.id, slug: brands.slug, isActive: brands.isActive })
      .from(brands)
      .where(eq(brands.tenantId, ctx.tenantId))
      .orderBy(asc(brands.createdAt), asc(brands.id)),
    ctx.db
      .select({ id: regions.id, name: regions.name, code: regions.code })
      .from(regions)
      .where(eq(regions.tenantId, ctx.tenantId)),
  ]);
  return {
    defaultBrandId: brandRows.find((b) => b.isActive)?.id ?? null,
    /** by id or slug */
    brand: (v: string) => brandRows.find((b) => b.id === v || b.slug === v.toLowerCase())?.id ?? null,
    /** by id, name (any case) or code */
    region: (v: string) =>
      regionRows.find(
        (r) =>
          r.id === v ||
          r.name.toLowerCase() === v.toLowerCase() ||
          (r.code !== null && r.code.toLowerCase() === v.toLowerCase()),
      )?.id ?? null,
  };
}

async function existingByExternalId(ctx: ServiceContext, ids: string[]) {
  if (ids.length === 0) return new Map<string, LocationRow>();
  const rows = await ctx.db
    .select()
    .from(locations)
    .where(and(eq(locations.tenantId, ctx.tenantId), inJson(locations.externalId, ids)));
  return new Map(rows.map((r) => [r.externalId!, r]));
}

const chunks = <T>(xs: T[], n: number) =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

const COLUMNS = Object.entries(getTableColumns(locations));

/**
 * Many rows in one statement through a single JSON parameter (D1 allows 100 bound parameters):
 * INSERT ... SELECT FROM json_each(?) with ON CONFLICT(id) DO UPDATE, so new and matched rows go together.
 */
function upsertStatement(ctx: ServiceContext, rows: LocationRow[]) {
  const select = sql.join(
    COLUMNS.map(([key]) => sql.raw(`json_extract(value, '$.${key}')`)),
    sql.raw(", "),
  );
  const set = Object.fromEntries(
    COLUMNS.filter(([key]) => !["id", "tenantId", "createdAt"].includes(key)).map(([key, column]) => [
      key,
      sql.raw(`excluded."${column.name}"`),
    ]),
  );
  // WHERE true: without it SQLite would read ON CONFLICT as a join constraint
  return ctx.db
    .insert(locations)
    .select(sql`select ${select} from json_each(${JSON.stringify(rows)}) where true`)
    .onConflictDoUpdate({ target: locations.id, set });
}
