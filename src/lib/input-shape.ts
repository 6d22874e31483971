const SECRET_KEY = /secret|password|token|api[-_]?key|authorization|credential/i;

/** The shape of a tool's input: keys and value types, never the values (so nothing secret is kept). */
export function inputShape(input: unknown, depth = 0): unknown {
  if (input === null) return "null";
  if (Array.isArray(input)) return depth > 2 ? "array" : `array(${input.length})`;
  if (typeof input === "string") return `string(${input.length})`;
  if (typeof input !== "object") return typeof input;
  if (depth > 2) return "object";
  return Object.fromEntries(
    Object.entries(input as Record<string, unknown>).map(([k, v]) => [
      k,
      SECRET_KEY.test(k) ? "[redacted]" : inputShape(v, depth + 1),
    ]),
  );
}
