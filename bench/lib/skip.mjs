/** A case that cannot run on this build (its route is not there yet): a row with the reason. */
export const skipped = (note) => ({
  rps: null,
  p50: null,
  p99: null,
  p50At1: null,
  requests: 0,
  non2xx: 0,
  extra: { note },
});

/**
 * true when the path answers the app's "No route" 404 (the route is not built in this branch); for
 * a public path under /v1, the auth middleware's 401 means the same (a public route never asks).
 */
export async function routeMissing(url, path, init = {}) {
  const res = await fetch(`${url}${path}`, init);
  if (res.status === 401) return true;
  if (res.status !== 404) return false;
  const body = await res.json().catch(() => null);
  return typeof body?.error === "string" && body.error.startsWith("No route");
}
