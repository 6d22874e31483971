import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister, canManage } from "../../middleware/tenant";
import { CreateExperimentBody, ExperimentSchema, UpdateExperimentBody } from "./schemas";
import { createExperiment, type ExperimentMove, transitionExperiment, updateExperiment } from "./service";

const tags = ["Experiments"];

const create = createRoute({
  method: "post",
  path: "/v1/experiments",
  tags,
  security: TENANT_SECURITY,
  summary: "Create a draft experiment (manager)",
  operationId: "createExperiment",
  description: "At least 2 variants, each trafficPercent 0 to 100, adding up to 100; the first variant is the control.",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateExperimentBody) },
  responses: { 201: json(ExperimentSchema, "Created"), ...stdErrors },
});

const update = createRoute({
  method: "patch",
  path: "/v1/experiments/{id}",
  operationId: "updateExperiment",
  tags,
  security: TENANT_SECURITY,
  summary: "Rename, edit the hypothesis, or pick a winner (tenant_admin)",
  description:
    "A winnerVariantId completes a running or paused experiment (409 INVALID_TRANSITION otherwise) and emits experiment.completed.",
  middleware: [canAdminister] as const,
  request: { params: IdParam, body: jsonBody(UpdateExperimentBody) },
  responses: { 200: json(ExperimentSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const MOVE_DOCS: Record<ExperimentMove, string> = {
  start: "Start a draft experiment (manager); 409 CONFLICT when another experiment of the campaign is running",
  pause: "Pause a running experiment (manager)",
  resume: "Resume a paused experiment (manager); 409 CONFLICT when another experiment of the campaign is running",
  complete: "Complete a running or paused experiment without a winner (tenant_admin)",
};

const MOVE_OPERATION_IDS = {
  start: "startExperiment",
  pause: "pauseExperiment",
  resume: "resumeExperiment",
  complete: "completeExperiment",
} as const satisfies Record<ExperimentMove, string>;

const transition = (name: ExperimentMove) =>
  createRoute({
    method: "post",
    path: `/v1/experiments/{id}/${name}`,
    operationId: MOVE_OPERATION_IDS[name],
    tags,
    security: TENANT_SECURITY,
    summary: MOVE_DOCS[name],
    description:
      "Statuses: draft -> running <-> paused; running or paused -> completed. Any other move is 409 INVALID_TRANSITION.",
    middleware: [name === "complete" ? canAdminister : canManage] as const,
    request: { params: IdParam },
    responses: { 200: json(ExperimentSchema), ...stdErrorsWithNotFound, 409: errors[409] },
  });

export const experimentRoutes: Router = createRouter()
  .openapi(create, async (c) => c.json(await createExperiment(svc(c), c.req.valid("json")), 201))
  .openapi(update, async (c) =>
    c.json(await updateExperiment(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(transition("start"), async (c) =>
    c.json(await transitionExperiment(svc(c), c.req.valid("param").id, "start"), 200),
  )
  .openapi(transition("pause"), async (c) =>
    c.json(await transitionExperiment(svc(c), c.req.valid("param").id, "pause"), 200),
  )
  .openapi(transition("resume"), async (c) =>
    c.json(await transitionExperiment(svc(c), c.req.valid("param").id, "resume"), 200),
  )
  .openapi(transition("complete"), async (c) =>
    c.json(await transitionExperiment(svc(c), c.req.valid("param").id, "complete"), 200),
  );
