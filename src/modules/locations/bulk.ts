import { z } from "@hono/zod-openapi";
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import Papa from "papaparse";
import { brands, locations, regions } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { CountryCode, Email, HttpUrl, TimeZone } from "../../lib/validators";
import { MAX_CSV_ROWS, tooLarge } from "./upload";

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

/** Columns written straight to a location column (brand and region are resolved to ids). */
const DIRECT: Exclude<Field, "brand" | "region">[] = [
  "name", "externalId", "addressLine1", "addressLine2", "city", "state", "postalCode", "country", "timezone", "phone",
  "email", "websiteUrl", "googlePlaceId", "yelpBusinessId", "facebookPageId", "latitude", "longitude",
];

const normalise = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, "");
/** Header aliases, compared lower-cased without separators (address_line1 = addressLine1). */
const HEADER_ALIASES: Record<string, Field> = {
  ...Object.fromEntries((Object.keys(RowSchema.shape) as Field[]).map((f) => [normalise(f), f])),
  brandslug: "brand", brandid: "brand", regionid: "region", regionname: "region", regioncode: "region",
  lat: "latitude", lng: "longitude", lon: "longitude", zip: "postalCode", website: "websiteUrl",
};

export interface BulkResult {
  imported: number;
  updated: number;
  errors: { row: number; reason: string }[];
}

/** Each location write statement carries this many rows as one JSON parameter (json_each). */
const ROWS_PER_STATEMENT = 100;

interface Prepared {
  row: number;
  data: Row & { brandId: string | null; regionId: string | null };
}

/**
 * CSV import of locations: upsert on externalId (rows without one are always new). Columns present
 * in the header are written (a blank cell clears the value; blank brand, country or timezone keeps
 * the current value, or the default on insert); absent columns are left alone. Invalid rows are
 * reported and skipped; the valid rows and one summary audit row commit in one batch.
 */
export async function importLocationsCsv(ctx: ServiceContext, csv: string): Promise<BulkResult> {
  const parsed = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ""), { header: true, skipEmptyLines: "greedy", transformHeader: (h) => h.trim() });
  const headerFields = new Map<string, Field>();
  for (const h of parsed.meta.fields ?? []) {
    const field = HEADER_ALIASES[normalise(h)];
    if (field) headerFields.set(h, field);
  }
  const present = new Set(headerFields.values());
  if (!present.has("name")) throw validationError([{ path: "file", message: "The CSV needs a header row with at least a 'name' column" }]);
  if (parsed.data.length > MAX_CSV_ROWS) throw tooLarge(`The file has ${parsed.data.length} rows`);

  const refs = await loadRefs(ctx);
  const errors: BulkResult["errors"] = [];
  const prepared: Prepared[] = [];
  const seenExternal = new Map<string, number>();
  parsed.data.forEach((cells, i) => {
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
      errors.push({ row: rowNo, reason: check.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ") });
      return;
    }
    const data = check.data;
    const brandId = data.brand ? refs.brand(data.brand) : null;
    if (data.brand && !brandId) return void errors.push({ row: rowNo, reason: `brand: unknown brand '${data.brand}'` });
    const regionId = data.region ? refs.region(data.region) : null;
    if (data.region && !regionId) return void errors.push({ row: rowNo, reason: `region: unknown region '${data.region}'` });
    if (data.externalId) {
      const first = seenExternal.get(data.externalId);
      if (first) return void errors.push({ row: rowNo, reason: `externalId: duplicate of row ${first}` });
      seenExternal.set(data.externalId, rowNo);
    }
    prepared.push({ row: rowNo, data: { ...data, brandId, regionId } });
  });

  const existing = await existingExternalIds(ctx, [...seenExternal.keys()]);
  const updates = prepared.filter((p) => p.data.externalId && existing.has(p.data.externalId));
  const inserts = prepared.filter((p) => !(p.data.externalId && existing.has(p.data.externalId)));
  if (inserts.length && !refs.defaultBrandId && inserts.some((p) => !p.data.brandId)) {
    throw validationError([{ path: "brand", message: "The tenant has no active brand; give a brand column" }]);
  }

  const now = nowIso();
  const statements = [
    ...chunks(inserts, ROWS_PER_STATEMENT).map((c) => insertStatement(ctx, present, c, refs.defaultBrandId, now)),
    ...chunks(updates, ROWS_PER_STATEMENT).map((c) => updateStatement(ctx, present, c, now)),
  ];
  const result = { imported: inserts.length, updated: updates.length, errors };
  if (statements.length) {
    await commit(ctx, [
      ...statements,
      auditStatement(ctx, {
        tenantId: ctx.tenantId, action: "location.bulk_imported", resourceType: "location", resourceId: "bulk",
        nextState: { imported: result.imported, updated: result.updated, failedRows: errors.length, columns: [...present] },
      }),
    ]);
  }
  return result;
}

async function loadRefs(ctx: ServiceContext) {
  const [brandRows, regionRows] = await ctx.db.batch([
    ctx.db.select({ id: brands.id, slug: brands.slug, isActive: brands.isActive }).from(brands).where(eq(brands.tenantId, ctx.tenantId)).orderBy(asc(brands.createdAt), asc(brands.id)),
    ctx.db.select({ id: regions.id, name: regions.name, code: regions.code }).from(regions).where(eq(regions.tenantId, ctx.tenantId)),
  ]);
  return {
    defaultBrandId: brandRows.find((b) => b.isActive)?.id ?? null,
    /** by id or slug */
    brand: (v: string) => brandRows.find((b) => b.id === v || b.slug === v.toLowerCase())?.id ?? null,
    /** by id, name (any case) or code */
    region: (v: string) =>
      regionRows.find((r) => r.id === v || r.name.toLowerCase() === v.toLowerCase() || (r.code !== null && r.code.toLowerCase() === v.toLowerCase()))?.id ?? null,
  };
}

async function existingExternalIds(ctx: ServiceContext, ids: string[]) {
  if (ids.length === 0) return new Set<string>();
  const rows = await ctx.db
    .select({ externalId: locations.externalId })
    .from(locations)
    .where(and(eq(locations.tenantId, ctx.tenantId), sql`${locations.externalId} in (select value from json_each(${JSON.stringify(ids)}))`));
  return new Set(rows.map((r) => r.externalId!));
}

const chunks = <T>(xs: T[], n: number) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

const col = (f: keyof typeof locations.$inferSelect) => sql.raw(`"${locations[f].name}"`);
const jsonField = (f: string) => sql.raw(`json_extract(value, '$.${f}')`);
const join = (parts: SQL[]) => sql.join(parts, sql.raw(", "));

/** Multi-row insert of new locations from one JSON parameter. */
function insertStatement(ctx: ServiceContext, present: Set<Field>, rows: Prepared[], defaultBrandId: string | null, now: string) {
  const fields = DIRECT.filter((f) => present.has(f));
  if (present.has("region")) (fields as string[]).push("regionId");
  const payload = rows.map((p) => ({
    ...p.data,
    id: newId(),
    brandId: p.data.brandId ?? defaultBrandId,
    country: p.data.country ?? "US",
    timezone: p.data.timezone ?? "UTC",
  }));
  const columns = join([col("id"), col("tenantId"), col("brandId"), col("createdAt"), col("updatedAt"), ...fields.map((f) => col(f as keyof typeof locations.$inferSelect))]);
  const values = join([jsonField("id"), sql`${ctx.tenantId}`, jsonField("brandId"), sql`${now}`, sql`${now}`, ...fields.map(jsonField)]);
  return ctx.db.run(sql`insert into ${locations} (${columns}) select ${values} from json_each(${JSON.stringify(payload)})`);
}

/** Updates existing locations (matched on externalId) from one JSON parameter with UPDATE ... FROM. */
function updateStatement(ctx: ServiceContext, present: Set<Field>, rows: Prepared[], now: string) {
  const keepIfBlank = new Set(["country", "timezone"]);
  const fields = DIRECT.filter((f) => present.has(f) && f !== "externalId");
  const sets = [
    sql`${col("updatedAt")} = ${now}`,
    ...fields.map((f) =>
      keepIfBlank.has(f)
        ? sql`${col(f)} = coalesce(j.${sql.raw(`"${f}"`)}, ${locations}.${col(f)})`
        : sql`${col(f)} = j.${sql.raw(`"${f}"`)}`,
    ),
    ...(present.has("brand") ? [sql`${col("brandId")} = coalesce(j."brandId", ${locations}.${col("brandId")})`] : []),
    ...(present.has("region") ? [sql`${col("regionId")} = j."regionId"`] : []),
  ];
  const selected = join([
    sql.raw(`json_extract(value, '$.externalId') as "externalId"`),
    ...[...fields, "brandId", "regionId"].map((f) => sql.raw(`json_extract(value, '$.${f}') as "${f}"`)),
  ]);
  const payload = rows.map((p) => p.data);
  return ctx.db.run(
    sql`update ${locations} set ${join(sets)} from (select ${selected} from json_each(${JSON.stringify(payload)})) as j where ${locations}.${col("tenantId")} = ${ctx.tenantId} and ${locations}.${col("externalId")} = j."externalId"`,
  );
}
