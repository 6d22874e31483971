import { createRoute, z } from "@hono/zod-openapi";
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
import { canManage } from "../../middleware/tenant";
import { BindingParams, BindingSchema, CreateBindingBody } from "./bindings.schemas";
import { createBinding, deleteBinding, listBindings } from "./bindings.service";
import { CampaignSchema, CreateCampaignBody, UpdateCampaignBody } from "./schemas";
import { PutSequenceBody, SequenceSchema } from "./sequences.schemas";
import { deleteSequence, getSequence, putSequence } from "./sequences.service";
import { createCampaign, getCampaign, setCampaignActive, updateCampaign } from "./service";

const tags = ["Campaigns"];
const deleted = { description: "Deleted" };

const create = createRoute({
  method: "post",
  path: "/v1/campaigns",
  tags,
  security: TENANT_SECURITY,
  summary: "Create a campaign (manager); it starts active",
  operationId: "createCampaign",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateCampaignBody) },
  responses: { 201: json(CampaignSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/campaigns/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a campaign",
  operationId: "getCampaign",
  request: { params: IdParam },
  responses: { 200: json(CampaignSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/campaigns/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update a campaign (manager)",
  operationId: "updateCampaign",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(UpdateCampaignBody) },
  responses: { 200: json(CampaignSchema), ...stdErrorsWithNotFound },
});

const activation = (action: "activate" | "deactivate") =>
  createRoute({
    method: "post",
    path: `/v1/campaigns/{id}/${action}`,
    operationId: action === "activate" ? "activateCampaign" : "deactivateCampaign",
    tags,
    security: TENANT_SECURITY,
    summary: `${action === "activate" ? "Activate" : "Deactivate"} a campaign from any state (manager)`,
    middleware: [canManage] as const,
    request: { params: IdParam },
    responses: { 200: json(CampaignSchema), ...stdErrorsWithNotFound },
  });

const listTemplates = createRoute({
  method: "get",
  path: "/v1/campaigns/{id}/templates",
  tags,
  security: TENANT_SECURITY,
  operationId: "listCampaignTemplates",
  summary: "Template bindings, by channel then priority (highest first)",
  request: { params: IdParam },
  responses: { 200: json(z.array(BindingSchema)), ...stdErrorsWithNotFound },
});

const bindTemplate = createRoute({
  method: "post",
  path: "/v1/campaigns/{id}/templates",
  tags,
  security: TENANT_SECURITY,
  summary: "Bind a template (manager)",
  operationId: "addCampaignTemplate",
  description:
    "The template must be this tenant's, not archived, on the binding's channel, which must be one of the campaign's. " +
    "A draft may be bound: sends use the approved version of the bound template's lineage, so a lineage with no " +
    "approved version is skipped at send. 409 when the same template is already bound for that channel, locale and variant.",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(CreateBindingBody) },
  responses: { 201: json(BindingSchema, "Created"), ...stdErrorsWithNotFound, 409: errors[409] },
});

const unbindTemplate = createRoute({
  method: "delete",
  path: "/v1/campaigns/{id}/templates/{bindingId}",
  tags,
  security: TENANT_SECURITY,
  summary: "Remove a binding (manager)",
  operationId: "removeCampaignTemplate",
  middleware: [canManage] as const,
  request: { params: BindingParams },
  responses: { 204: deleted, ...stdErrorsWithNotFound },
});

const readSequence = createRoute({
  method: "get",
  path: "/v1/campaigns/{id}/sequence",
  tags,
  security: TENANT_SECURITY,
  summary: "The campaign's sequence, or null",
  operationId: "getCampaignSequence",
  request: { params: IdParam },
  responses: { 200: json(SequenceSchema.nullable()), ...stdErrorsWithNotFound },
});

const replaceSequence = createRoute({
  method: "put",
  path: "/v1/campaigns/{id}/sequence",
  tags,
  security: TENANT_SECURITY,
  summary: "Create or replace the sequence (manager)",
  operationId: "updateCampaignSequence",
  description:
    "The steps given replace all steps. stepIndex is unique, delayDays 0 to 365, at most 50 steps; each step's channel " +
    "must be one of the campaign's and its template (optional) this tenant's, not archived, on that channel.",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(PutSequenceBody) },
  responses: { 200: json(SequenceSchema), ...stdErrorsWithNotFound },
});

const removeSequence = createRoute({
  method: "delete",
  path: "/v1/campaigns/{id}/sequence",
  tags,
  security: TENANT_SECURITY,
  summary: "Delete the sequence (manager)",
  operationId: "deleteCampaignSequence",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 204: deleted, ...stdErrorsWithNotFound },
});

export const campaignRoutes: Router = createRouter()
  .openapi(create, async (c) => c.json(await createCampaign(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getCampaign(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateCampaign(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(activation("activate"), async (c) =>
    c.json(await setCampaignActive(svc(c), c.req.valid("param").id, true), 200),
  )
  .openapi(activation("deactivate"), async (c) =>
    c.json(await setCampaignActive(svc(c), c.req.valid("param").id, false), 200),
  )
  .openapi(listTemplates, async (c) => c.json(await listBindings(svc(c), c.req.valid("param").id), 200))
  .openapi(bindTemplate, async (c) =>
    c.json(await createBinding(svc(c), c.req.valid("param").id, c.req.valid("json")), 201),
  )
  .openapi(unbindTemplate, async (c) => {
    const { id, bindingId } = c.req.valid("param");
    await deleteBinding(svc(c), id, bindingId);
    return c.body(null, 204);
  })
  .openapi(readSequence, async (c) => c.json(await getSequence(svc(c), c.req.valid("param").id), 200))
  .openapi(replaceSequence, async (c) =>
    c.json(await putSequence(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(removeSequence, async (c) => {
    await deleteSequence(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });
