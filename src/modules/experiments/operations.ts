import { z } from "@hono/zod-openapi";
import { IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { ExperimentListQuery, ExperimentSchema, ResultsSchema } from "./schemas";
import { experimentResults, getExperiment, listExperiments } from "./service";

// The experiments operations served by REST and agents alike (src/lib/operation.ts).

const tags = ["Experiments"];

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
  handler: async (ctx, input) => listExperiments(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [getExperimentOperation, experimentResultsOperation, listExperimentsOperation];
