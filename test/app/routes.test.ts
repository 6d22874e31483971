import { expect, it } from "vitest";
import { createApp } from "../../src/app";

// The app's routes in the order hono tries them (registration order: the first handler that answers
// wins). The catalogue's REST routes are mounted as one router (src/lib/operation-route.ts restRoutes)
// beside the routers not yet in it, so a templated route must never come before a route it would
// swallow (`GET /v1/things/{id}` before `GET /v1/things/export`), and no route may be mounted twice (an
// operation in the catalogue that its module's routes.ts also mounts).

const app = createApp();
const routes = app.routes
  .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
  .map((r) => ({ method: r.method, path: r.path }));

const pattern = (path: string) =>
  new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_]+(\{[^}]*\})?/g, "[^/]+")}$`);

it("mounts no documented method and path twice", () => {
  const seen = new Map<string, number>();
  for (const d of app.openAPIRegistry.definitions) {
    if (d.type !== "route") continue;
    const key = `${d.route.method.toUpperCase()} ${d.route.path}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  expect([...seen].filter(([, n]) => n > 1).map(([k]) => k)).toEqual([]);
  expect(seen.size).toBeGreaterThan(250);
});

it("lets no earlier route swallow a later one's literal path", () => {
  const shadowed: string[] = [];
  routes.forEach((later, i) => {
    const concrete = later.path.replace(/:[A-Za-z0-9_]+/g, "x-param");
    for (const earlier of routes.slice(0, i)) {
      if (earlier.method !== later.method || earlier.path === later.path) continue;
      if (pattern(earlier.path).test(concrete)) shadowed.push(`${later.method} ${later.path} behind ${earlier.path}`);
    }
  });
  expect(shadowed).toEqual([]);
});
