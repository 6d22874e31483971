import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";

type Operation = {
  responses?: Record<string, unknown>;
  requestBody?: unknown;
  security?: unknown[];
  parameters?: { in: string; name: string }[];
};
let doc: {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
};

beforeAll(async () => {
  const res = await request("GET", "/docs/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});

/** POST actions on a resource that take no body (state moves, triggers) */
const BODYLESS_ACTION = new RegExp(
  `/(${[
    "approve",
    "archive",
    "activate",
    "deactivate",
    "submit",
    "publish",
    "version",
    "start",
    "pause",
    "resume",
    "complete",
    "accept",
    "reject",
    "cancel",
    "refresh",
    "recompute",
    "click",
    "rotate-secret",
    "test",
    "redeliver",
    "invite/resend",
    "crm/\\{integrationId\\}",
  ].join("|")})$`,
);

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );

describe("OpenAPI document", () => {
  // schema validation itself: test/node/openapi-document.test.ts
  it("is OpenAPI 3.1, version 2.0.0", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("2.0.0");
  });

  it("names the deployment's PUBLIC_BASE_URL as its server, for SDK generators", () => {
    expect((doc as unknown as { servers: unknown }).servers).toEqual([
      {
        url: env.PUBLIC_BASE_URL.replace(/\/+$/, ""),
        description: `The ${env.ENVIRONMENT} deployment (PUBLIC_BASE_URL)`,
        "x-internal": false,
      },
    ]);
  });

  it("declares bearer and x-tenant-id security schemes", () => {
    expect(doc.components.securitySchemes).toMatchObject({
      bearerAuth: { type: "http", scheme: "bearer" },
      tenantHeader: { type: "apiKey", in: "header", name: "x-tenant-id" },
    });
  });

  const NO_INPUT = new Set([
    "/health",
    "/mcp/health",
    "/mcp/icon.svg",
    "/mcp/skills",
    "/skills",
    "/docs",
    "/docs/openapi.json",
  ]);
  it("gives every operation a success (or, for a redirect, 3xx) response and an error response", () => {
    for (const { path, method, op } of operations()) {
      const codes = Object.keys(op.responses ?? {});
      expect(
        codes.some((c) => c.startsWith("2") || c.startsWith("3")),
        `${method} ${path} success`,
      ).toBe(true);
      // probes, the skill catalog and the reference take no input: nothing they could refuse
      if (!NO_INPUT.has(path))
        expect(
          codes.some((c) => c.startsWith("4")),
          `${method} ${path} errors`,
        ).toBe(true);
    }
  });

  it("puts every /v1 operation behind bearer + tenant security and every write behind a request body", () => {
    // the public short-link and feedback routes (spec: "marked public") carry the token in the path instead
    const isPublic = (path: string) => /^\/v1\/(r|f)\//.test(path);
    for (const o of operations().filter((o) => isPublic(o.path)))
      expect(o.op.security, `${o.method} ${o.path}`).toEqual([]);
    const v1 = operations().filter((o) => o.path.startsWith("/v1/") && !isPublic(o.path));
    expect(v1.length).toBeGreaterThan(0);
    for (const { path, method, op } of v1) {
      // the spec's public short-link and feedback routes are /v1 paths without credentials
      const isPublic = /^\/v1\/(f|r)\/\{token\}/.test(path);
      expect(op.security, `${method} ${path}`).toEqual(isPublic ? [] : [{ bearerAuth: [], tenantHeader: [] }]);
      if (["post", "put", "patch"].includes(method) && !BODYLESS_ACTION.test(path)) {
        expect(op.requestBody, `${method} ${path} body`).toBeDefined();
      }
    }
  });

  it("serves the interactive page at /docs", async () => {
    const res = await request("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("/docs/openapi.json");
  });
});
