import { MAX_CSV_BYTES, MAX_CSV_ROWS, readCsvFile } from "../../lib/csv";
import { ApiError, validationError } from "../../lib/errors";
import type { UploadRequest } from "../../lib/operation";

export const tooLarge = (what: string) =>
  new ApiError("PAYLOAD_TOO_LARGE", `${what} (limits: ${MAX_CSV_ROWS} rows, 10 MB)`);

/** The CSV text of an upload: multipart/form-data with a `file` field, or a text/csv body. */
export async function readCsvUpload(request: UploadRequest): Promise<string> {
  const type = request.header("content-type") ?? "";
  const declared = Number(request.header("content-length") ?? 0);
  if (declared > MAX_CSV_BYTES + 64 * 1024) throw tooLarge("The upload is too large");
  if (type.startsWith("multipart/form-data")) {
    let file: unknown;
    try {
      file = (await request.formData()).get("file");
    } catch {
      file = null;
    }
    if (!(file instanceof File))
      throw validationError([{ path: "file", message: "A CSV file is required in the field 'file'" }]);
    if (file.size > MAX_CSV_BYTES) throw tooLarge("The file is too large");
    return readCsvFile(file);
  }
  if (type.startsWith("text/csv")) {
    const text = await request.text();
    if (new TextEncoder().encode(text).length > MAX_CSV_BYTES) throw tooLarge("The file is too large");
    return text;
  }
  throw validationError([
    { path: "body", message: "Send multipart/form-data with a 'file' field, or a text/csv body" },
  ]);
}
