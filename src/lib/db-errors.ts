/** True when a D1 error (or its cause, as drizzle wraps it) is a UNIQUE constraint violation. */
export function isUniqueViolation(e: unknown): boolean {
  for (let err = e as { message?: string; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (/UNIQUE constraint failed/i.test(String(err.message))) return true;
  }
  return false;
}
