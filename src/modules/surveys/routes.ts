import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import { FeedbackSchema } from "../feedback/schemas";
import {
  AttachSurveyBody,
  CampaignIdParam,
  CampaignSurveySchema,
  CreateSurveyBody,
  SurveyResponsesQuery,
  SurveySchema,
  SurveyStatsSchema,
  UpdateSurveyBody,
} from "./schemas";
import {
  attachSurvey,
  createSurvey,
  deleteSurvey,
  detachSurvey,
  getCampaignSurvey,
  getSurvey,
  updateSurvey,
} from "./service";
import { surveyResponses, surveyStats } from "./stats";

const tags = ["Surveys"];
const read = { tags, security: TENANT_SECURITY };
const manage = { tags, security: TENANT_SECURITY };

const create = createRoute({
  method: "post",
  path: "/v1/surveys",
  ...manage,
  middleware: [canManage] as const,
  summary: "Create a survey as a draft (manager)",
  operationId: "createSurvey",
  request: { body: jsonBody(CreateSurveyBody) },
  responses: { 201: json(SurveySchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/surveys/{id}",
  operationId: "getSurvey",
  ...read,
  summary: "Get a survey",
  request: { params: IdParam },
  responses: { 200: json(SurveySchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/surveys/{id}",
  ...manage,
  middleware: [canManage] as const,
  summary: "Edit, launch, close or reopen a survey (manager)",
  operationId: "updateSurvey",
  description:
    "status moves: draft -> active (launch), active -> closed, closed -> active (reopen); others are 409 INVALID_TRANSITION. " +
    "questions can change only in draft (409 otherwise). Templates cannot be launched.",
  request: { params: IdParam, body: jsonBody(UpdateSurveyBody) },
  responses: { 200: json(SurveySchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/surveys/{id}",
  ...manage,
  middleware: [canManage] as const,
  summary: "Delete a survey without responses (manager)",
  operationId: "deleteSurvey",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound, 409: errors[409] },
});

const stats = createRoute({
  method: "get",
  path: "/v1/surveys/{id}/stats",
  ...read,
  summary: "Survey statistics: completion, time to complete, NPS, sentiment, themes",
  operationId: "getSurveyStats",
  request: { params: IdParam },
  responses: { 200: json(SurveyStatsSchema), ...stdErrorsWithNotFound },
});

const responses = createRoute({
  method: "get",
  path: "/v1/surveys/{id}/responses",
  ...read,
  summary: "A survey's responses, newest first",
  operationId: "listSurveyResponses",
  request: { params: IdParam, query: SurveyResponsesQuery },
  responses: { 200: json(paged(FeedbackSchema).openapi("SurveyResponsePage")), ...stdErrorsWithNotFound },
});

const getAttached = createRoute({
  method: "get",
  path: "/v1/campaigns/{campaignId}/survey",
  ...read,
  summary: "The survey a campaign's feedback page shows",
  operationId: "getCampaignSurvey",
  request: { params: CampaignIdParam },
  responses: { 200: json(CampaignSurveySchema), ...stdErrorsWithNotFound },
});

const attach = createRoute({
  method: "put",
  path: "/v1/campaigns/{campaignId}/survey",
  ...manage,
  middleware: [canManage] as const,
  summary: "Attach a survey to a campaign (manager)",
  operationId: "updateCampaignSurvey",
  description:
    "Replaces any attached survey and sets the campaign's reviewDestination to survey. The page shows it while it is active.",
  request: { params: CampaignIdParam, body: jsonBody(AttachSurveyBody) },
  responses: { 200: json(CampaignSurveySchema), ...stdErrorsWithNotFound },
});

const detach = createRoute({
  method: "delete",
  path: "/v1/campaigns/{campaignId}/survey",
  ...manage,
  middleware: [canManage] as const,
  summary: "Detach the campaign's survey (manager)",
  operationId: "deleteCampaignSurvey",
  request: { params: CampaignIdParam },
  responses: { 204: { description: "Detached" }, ...stdErrorsWithNotFound },
});

export const surveyRoutes: Router = createRouter()
  .openapi(create, async (c) => c.json(await createSurvey(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getSurvey(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateSurvey(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteSurvey(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(stats, async (c) => c.json(await surveyStats(svc(c), c.req.valid("param").id), 200))
  .openapi(responses, async (c) =>
    c.json(await surveyResponses(svc(c), c.req.valid("param").id, c.req.valid("query")), 200),
  )
  .openapi(getAttached, async (c) => c.json(await getCampaignSurvey(svc(c), c.req.valid("param").campaignId), 200))
  .openapi(attach, async (c) =>
    c.json(await attachSurvey(svc(c), c.req.valid("param").campaignId, c.req.valid("json").surveyId), 200),
  )
  .openapi(detach, async (c) => {
    await detachSurvey(svc(c), c.req.valid("param").campaignId);
    return c.body(null, 204);
  });
