import { z } from "@hono/zod-openapi";
import { errors, IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import {
  CreateExperimentBody,
  ExperimentListQuery,
  ExperimentSchema,
  ResultsSchema,
  UpdateExperimentBody,
} from "./schemas";
import {
  createExperiment,
  type ExperimentMove,
  experimentResults,
  getExperiment,
  listExperiments,
  transitionExperiment,
  updateExperiment,
} from "./service";

// The experiments operations served by REST and agents alike (src/lib/operation.ts). /v1/experiments is
// closed to API keys (identity/scopes.ts): the role decides.

const tags = ["Experiments"];

export const createExperimentOperation = defineOperation({
  name: "experiment.create",
  operationId: "createExperiment",
  method: "post",
  path: "/v1/experiments",
  tags,
  summary: "Create a draft experiment (manager)",
  description: "At least 2 variants, each trafficPercent 0 to 100, adding up to 100; the first variant is the control.",
  request: { body: CreateExperimentBody },
  status: 201,
  output: ExperimentSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (ctx, input) => createExperiment(ctx, input),
});

export const updateExperimentOperation = defineOperation({
  name: "experiment.update",
  operationId: "updateExperiment",
  method: "patch",
  path: "/v1/experiments/{id}",
  tags,
  summary: "Rename, edit the hypothesis, or pick a winner (tenant_admin)",
  description:
    "A winnerVariantId completes a running or paused experiment (409 INVALID_TRANSITION otherwise) and emits experiment.completed.",
  request: { params: IdParam, body: UpdateExperimentBody },
  output: ExperimentSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: async (ctx, { id, ...patch }) => updateExperiment(ctx, id, patch),
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

/** POST /v1/experiments/{id}/{move}: one status move each. */
const transition = (move: ExperimentMove) =>
  defineOperation({
    name: `experiment.${move}`,
    operationId: MOVE_OPERATION_IDS[move],
    method: "post",
    path: `/v1/experiments/{id}/${move}`,
    tags,
    summary: MOVE_DOCS[move],
    description:
      "Statuses: draft -> running <-> paused; running or paused -> completed. Any other move is 409 INVALID_TRANSITION.",
    request: { params: IdParam },
    output: ExperimentSchema,
    errors: { ...stdErrorsWithNotFound, 409: errors[409] },
    scopes: [],
    minRole: move === "complete" ? "tenant_admin" : "manager",
    access: "write",
    console: {},
    handler: async (ctx, input) => transitionExperiment(ctx, input.id, move),
  });

export const startExperimentOperation = transition("start");
export const pauseExperimentOperation = transition("pause");
export const resumeExperimentOperation = transition("resume");
export const completeExperimentOperation = transition("complete");

export const getExperimentOperation = defineOperation({
  name: "experiment.get",
  operationId: "getExperiment",
  method: "get",
  path: "/v1/experiments/{id}",
  tags,
  summary: "Get an experiment",
  description: "One experiment with its variants.",
  request: { params: IdParam },
  output: ExperimentSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  agent: { scopes: ["read:campaigns"], rename: { id: "experimentId" } },
  console: {},
  handler: async (ctx, input) => getExperiment(ctx, input.id),
});

export const experimentResultsOperation = defineOperation({
  name: "experiment.results",
  operationId: "getExperimentResults",
  method: "get",
  path: "/v1/experiments/{id}/results",
  tags,
  summary: "Per-variant outcomes, rates and z-tests against the control",
  description:
    "Counts are of the solicitations sent under each variant; rates are over sends. Each non-control variant gets a " +
    "two-sided two-proportion z-test (pooled) of its click and conversion rates against the control (the first variant). " +
    "Until solicitations are sent under the experiment every count is 0 and the tests are null.",
  request: { params: IdParam },
  output: ResultsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  agent: { scopes: ["read:campaigns"], rename: { id: "experimentId" } },
  console: {},
  handler: async (ctx, input) => experimentResults(ctx, input.id),
});

export const listExperimentsOperation = defineOperation({
  name: "experiment.list",
  operationId: "listExperiments",
  method: "get",
  path: "/v1/experiments",
  tags,
  summary: "List experiments, newest first",
  description: "A/B experiments (status, hypothesis, variants with traffic split), optionally of one campaign.",
  request: { query: ExperimentListQuery },
  output: z.array(ExperimentSchema),
  errors: stdErrors,
  scopes: [],
  access: "read",
  agent: { scopes: ["read:campaigns"] },
  console: {},
  handler: async (ctx, input) => listExperiments(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listExperimentsOperation,
  createExperimentOperation,
  getExperimentOperation,
  updateExperimentOperation,
  startExperimentOperation,
  pauseExperimentOperation,
  resumeExperimentOperation,
  completeExperimentOperation,
  experimentResultsOperation,
];
