type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 7396 JSON merge patch: objects merge recursively, null removes a key, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isObject(value)) out[key] = mergePatch(isObject(out[key]) ? (out[key] as Json) : {}, value);
    else out[key] = value;
  }
  return out;
}
