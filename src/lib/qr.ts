// The package's Node entry (its "browser" entry, which bundlers pick for workerd, has no PNG output)
import QRCode from "qrcode/lib/server.js";

/**
 * QR codes of public short links, for printing at the counter. Encoded by the `qrcode` package:
 * SVG as a string, PNG through pngjs (node:zlib and node:stream under nodejs_compat; no canvas).
 * Error correction M (15%) survives a smudged or folded print; a 4-module quiet zone as ISO/IEC
 * 18004 asks.
 */
export type QrFormat = "svg" | "png";

const OPTIONS = { errorCorrectionLevel: "M", margin: 4 } as const;

export const qrSvg = (text: string): Promise<string> => QRCode.toString(text, { ...OPTIONS, type: "svg" });

/** A PNG about `size` pixels wide (whole pixels per module). */
export async function qrPng(text: string, size = 512): Promise<Uint8Array> {
  const buffer = await QRCode.toBuffer(text, { ...OPTIONS, type: "png", width: size });
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * The QR image as an HTTP answer. The image depends only on the URL it encodes, which never
 * changes for a link, so browsers and the edge may keep it a day.
 */
export async function qrResponse(text: string, format: QrFormat, size: number): Promise<Response> {
  const headers = {
    "cache-control": "public, max-age=86400",
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
  };
  if (format === "png")
    return new Response(await qrPng(text, size), { headers: { ...headers, "content-type": "image/png" } });
  return new Response(await qrSvg(text), { headers: { ...headers, "content-type": "image/svg+xml; charset=utf-8" } });
}

/** The OpenAPI description of a QR answer (both formats). */
export const QR_RESPONSE = {
  description: "The QR code",
  content: {
    "image/svg+xml": { schema: { type: "string" as const } },
    "image/png": { schema: { type: "string" as const, format: "binary" } },
  },
};
