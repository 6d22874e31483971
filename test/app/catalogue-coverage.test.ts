import { describe, expect, it } from "vitest";
import { hasRest } from "../../src/lib/has-rest";
import { OPERATIONS } from "../../src/wiring";
import { operations } from "../helpers/openapi";

// Every JSON operation (/v1, /agency, /admin, /me) is declared once in the catalogue (src/wiring.ts
// OPERATIONS) and its REST route derived from it (src/lib/operation-route.ts restRoutes). MCP tools and
// agent tools: test/mcp/input-parity.test.ts ("every MCP tool and agent tool is derived ...").
// Exempt (docs/ARCHITECTURE.md): protocol endpoints, pages, inbound webhooks, and the public routes a
// signed token authorises under /v1 (/v1/f feedback, /v1/r short links), which are not JSON operations
// of a credential. No JSON operation is hand-written any more (the shrinking list of those that were,
// test/fixtures/surface/rest-not-in-catalogue.json, reached empty on 2026-11-28 and is gone).

const JSON_OPERATION = /^\/(v1|agency|admin|me)(\/|$)/;
const TOKEN_ROUTES = /^\/v1\/(f|r)\//;

describe("the catalogue covers every JSON operation's REST route", () => {
  const documented = operations().filter((o) => JSON_OPERATION.test(o.path) && !TOKEN_ROUTES.test(o.path));
  const derived = new Set(OPERATIONS.filter(hasRest).map((o) => o.operationId));

  it("every documented JSON operation is the catalogue's", () => {
    const handWritten = documented
      .filter((o) => !derived.has(o.op.operationId!))
      .map((o) => `${o.method.toUpperCase()} ${o.path} ${o.op.operationId}`);
    expect(documented.length).toBeGreaterThan(250);
    expect(handWritten).toEqual([]);
  });

  it("every REST operation of the catalogue is in the document, under its kind's prefix", () => {
    const ids = new Set(documented.map((o) => o.op.operationId));
    expect([...derived].filter((id) => !ids.has(id))).toEqual([]);
  });
});
