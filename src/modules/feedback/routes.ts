import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { createRouter, errors, json, jsonBody, type Router, tenantMovingResponse } from "../../lib/openapi";
import { requestMeta } from "../../middleware/service-context";
import { LandingSchema, SubmitFeedbackBody, SubmitResultSchema, TokenParam } from "./schemas";
import { getFeedbackLanding, type PublicRequest, submitFeedbackByToken } from "./service";

const tags = ["Feedback"];

export const publicRequest = (c: Context<AppEnv>): PublicRequest => ({
  control: c.get("control"),
  env: c.env,
  meta: requestMeta(c),
  defer: (work) => c.executionCtx.waitUntil(work),
  admit: c.get("hostGuard"),
});

const landing = createRoute({
  method: "get",
  path: "/v1/f/{token}",
  tags,
  security: [],
  summary: "Feedback landing data for a short-link token (public)",
  operationId: "getFeedbackPage",
  description:
    "No authentication. Brand, location, the survey to show (or null for the 1-5 rating form) and the public review links. " +
    "Served from a per-location cache (60 s); counts a landing view for the survey's completion rate.",
  request: { params: TokenParam },
  responses: { 200: json(LandingSchema), 400: errors[400], 404: errors[404] },
});

const submit = createRoute({
  method: "post",
  path: "/v1/f/{token}",
  tags,
  security: [],
  summary: "Submit feedback for a short-link token (public)",
  operationId: "submitFeedback",
  description:
    "No authentication. rating 1-5, npsScore 0-10, score by surveyType (nps 0-10, csat 1-5, ces 1-7; score needs surveyType). " +
    "One submission per link: sending again within 24 hours replaces it (updated true), later it is 409. " +
    "Sets the solicitation's convertedAt, creates a feedback inbox item; callbackRequested escalates it and emails the location.",
  request: { params: TokenParam, body: jsonBody(SubmitFeedbackBody) },
  responses: {
    201: json(SubmitResultSchema, "Feedback submitted"),
    400: errors[400],
    404: errors[404],
    409: errors[409],
    503: tenantMovingResponse,
  },
});

/** Mounted before the /v1 authentication middleware: these two are public. */
export const publicFeedbackRoutes: Router = createRouter()
  .openapi(landing, async (c) => c.json(await getFeedbackLanding(publicRequest(c), c.req.valid("param").token), 200))
  .openapi(submit, async (c) =>
    c.json(await submitFeedbackByToken(publicRequest(c), c.req.valid("param").token, c.req.valid("json")), 201),
  );
