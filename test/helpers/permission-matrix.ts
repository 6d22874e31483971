import { describe, expect, it } from "vitest";
import { request } from "./http";
import type { World } from "./seed";

export const MATRIX_ACTORS = ["platformAdmin", "agencyAdmin", "otherAgencyAdmin", "tenantAdmin", "tenantUser"] as const;
export type MatrixActor = (typeof MATRIX_ACTORS)[number];

export interface RouteCase {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** the path, built from the world (ids of tenant A etc.) */
  path: (w: World) => string;
  /** a fresh body per call (unique slugs, emails) */
  body?: (w: World) => unknown;
  /** send x-tenant-id: tenant A (for /v1 routes) */
  tenantHeader?: boolean;
  expect: Record<MatrixActor, number>;
}

/** Expectations when only the named actors get `ok` and everyone else `denied`. */
export const only = (ok: number, allowed: MatrixActor[], denied = 403) =>
  Object.fromEntries(MATRIX_ACTORS.map((a) => [a, allowed.includes(a) ? ok : denied])) as Record<MatrixActor, number>;

/**
 * One test per (route, actor): the status each actor gets. Error statuses must also carry the
 * matching ErrorResponse code.
 */
export function permissionMatrix(title: string, world: () => World, cases: RouteCase[]) {
  const CODES: Record<number, string> = { 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND" };
  describe(title, () => {
    for (const c of cases) {
      for (const actor of MATRIX_ACTORS) {
        const status = c.expect[actor];
        const shownPath = c.path
          .toString()
          .replace(/^\(\w*\) => /, "")
          .replace(/[`"]/g, "");
        it(`${c.method} ${shownPath} as ${actor} -> ${status}`, async () => {
          const w = world();
          const res = await request(c.method, c.path(w), {
            token: w.users[actor].token,
            tenantId: c.tenantHeader ? w.tenantA.id : undefined,
            body: c.body?.(w),
          });
          expect(res.status, JSON.stringify(res.body)).toBe(status);
          if (CODES[status]) expect(res.body.code).toBe(CODES[status]);
        });
      }
    }
  });
}
