import { createRoute } from "@hono/zod-openapi";
import { createRouter, IdParam, json, type Router, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import { ScoreHistoryQuery, ScoreHistorySchema, ScoreSnapshotSchema } from "./schemas";
import { latestScore, recomputeScore, scoreHistory } from "./service";

const tags = ["Reputation score"];
const formula =
  "Score 0..100 = 0.35 rating + 0.20 velocity + 0.20 sentiment + 0.15 response health + 0.10 platform diversity (docs/analytics.md).";

const latest = createRoute({
  method: "get",
  path: "/v1/locations/{id}/score",
  tags,
  security: TENANT_SECURITY,
  summary: "The location's latest daily score snapshot",
  operationId: "getLocationScore",
  description: `${formula} Computed now (and stored as today's snapshot) when the location has none yet.`,
  request: { params: IdParam },
  responses: { 200: json(ScoreSnapshotSchema), ...stdErrorsWithNotFound },
});

const recompute = createRoute({
  method: "post",
  path: "/v1/locations/{id}/score/recompute",
  tags,
  security: TENANT_SECURITY,
  summary: "Recompute today's snapshot now (manager)",
  operationId: "recomputeLocationScore",
  description: `${formula} Replaces today's snapshot; audited.`,
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 200: json(ScoreSnapshotSchema), ...stdErrorsWithNotFound },
});

const history = createRoute({
  method: "get",
  path: "/v1/locations/{id}/score/history",
  tags,
  security: TENANT_SECURITY,
  summary: "Daily snapshots, newest first",
  operationId: "getLocationScoreHistory",
  request: { params: IdParam, query: ScoreHistoryQuery },
  responses: { 200: json(ScoreHistorySchema), ...stdErrorsWithNotFound },
});

export const scoreRoutes: Router = createRouter()
  .openapi(latest, async (c) => c.json(await latestScore(svc(c), c.req.valid("param").id), 200))
  .openapi(recompute, async (c) => c.json(await recomputeScore(svc(c), c.req.valid("param").id), 200))
  .openapi(history, async (c) =>
    c.json(await scoreHistory(svc(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );
