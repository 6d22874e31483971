import { and, eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { brandLogos } from "../../db/schema";
import type { PlatformContext } from "../../lib/context";
import { fromBase64Url, toBase64Url } from "../../lib/crypto";
import { ApiError, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { LOGO_PATH } from "./logo-url";
import { brandOf, type Owner, saveBrand } from "./service";

/*
 * White-label logos, uploaded and served from our own origin (docs/white-label.md "Logos"; #45 "Own origin"):
 * a page never loads a brand's logo from another site (the console's and public pages' CSP allow images from
 * this origin only, and a hot-linked image tells that site who opened the page). PNG, JPEG or WebP, judged by
 * the file's own first bytes, never by its name or the type the upload claims: an SVG (script) or an HTML
 * file renamed .png is refused. At most 256 KB.
 */

export const LOGO_MAX_BYTES = 256 * 1024;
const KINDS = [
  { type: "image/png", ext: "png", is: (b: Uint8Array) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: "image/jpeg", ext: "jpg", is: (b: Uint8Array) => starts(b, [0xff, 0xd8, 0xff]) },
  {
    type: "image/webp",
    ext: "webp",
    // RIFF....WEBP
    is: (b: Uint8Array) => starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
  },
] as const;

const starts = (b: Uint8Array, sig: readonly number[]) => b.length >= sig.length && sig.every((x, i) => b[i] === x);

/** The image's kind by its signature, or a 400 naming what is accepted; a 413 past the size. */
export async function readLogo(file: File): Promise<{ bytes: Uint8Array; type: string; ext: string }> {
  if (file.size > LOGO_MAX_BYTES)
    throw new ApiError(
      "PAYLOAD_TOO_LARGE",
      `The logo is ${Math.ceil(file.size / 1024)} KB; at most 256 KB is accepted.`,
    );
  const bytes = new Uint8Array(await file.arrayBuffer());
  const kind = KINDS.find((k) => k.is(bytes));
  if (!kind || bytes.length === 0)
    throw validationError([{ path: "file", message: "a PNG, JPEG or WebP image is accepted (not SVG)" }]);
  return { bytes, type: kind.type, ext: kind.ext };
}

/**
 * Stores the owner's logo and points its brand at it, in one control batch with the brand's audit row: the
 * old logo row goes, the new one gets a new id (a new address, so caches never show the old image). A tenant
 * without an override gets one holding only the logo (every other field still inherits its agency's); an
 * agency needs its brand first (its name is required).
 */
export async function setBrandLogo(ctx: PlatformContext, owner: Owner, file: File) {
  const logo = await readLogo(file);
  const before = await brandOf(ctx.control, owner.scope, owner.scopeId);
  if (!before && owner.scope === "agency") throw notFound("Agency brand");
  const id = newId();
  const url = `${LOGO_PATH}${id}.${logo.ext}`;
  const fields = {
    name: before?.name ?? null,
    primaryColor: before?.primaryColor ?? null,
    accentColor: before?.accentColor ?? null,
    supportEmail: before?.supportEmail ?? null,
    logoUrl: url,
  };
  return saveBrand(ctx, owner, fields, (control) => [
    control.delete(brandLogos).where(and(eq(brandLogos.scope, owner.scope), eq(brandLogos.scopeId, owner.scopeId))),
    control.insert(brandLogos).values({
      id,
      scope: owner.scope,
      scopeId: owner.scopeId,
      agencyId: owner.agencyId,
      contentType: logo.type,
      bytes: toBase64Url(logo.bytes),
      size: logo.bytes.length,
      createdAt: nowIso(),
    }),
  ]);
}

/** A logo by its address's file name (`{id}.{ext}`), with its owner for the custom-host guard; null if unknown. */
export async function logoFile(control: ControlDb, fileName: string) {
  const m = /^([a-z0-9]+)\.(png|jpg|webp)$/.exec(fileName);
  if (!m) return null;
  const row = await control.select().from(brandLogos).where(eq(brandLogos.id, m[1]!)).get();
  if (!row || KINDS.find((k) => k.type === row.contentType)?.ext !== m[2]) return null;
  return { ...row, bytes: fromBase64Url(row.bytes) };
}
