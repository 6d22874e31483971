import { createRoute } from "@hono/zod-openapi";
import { unauthenticated } from "../../lib/errors";
import { createRouter, errors, json, jsonBody, paged, type Router, USER_SECURITY } from "../../lib/openapi";
import { requestMeta } from "../../middleware/service-context";
import { reachableTenants } from "../tenants/reachable";
import { ReachableTenantQuery, ReachableTenantSchema } from "../tenants/schemas";
import { updateMyProfile } from "./me.service";
import { MeResponse, UpdateMeBody } from "./schemas";

const tags = ["Auth"];

/** The tenants the signed-in person reaches, with their role in each (the console's tenant switcher reads the same). */
const listMyTenants = createRoute({
  method: "get",
  path: "/me/tenants",
  operationId: "listMyTenants",
  tags,
  security: USER_SECURITY,
  summary: "The tenants you reach, with your role in each, by name",
  description:
    "Your own tenant roles, every tenant of an agency you administer, and for the platform admin every tenant; " +
    "search matches part of the name or slug. Keyset pages ordered by name.",
  request: { query: ReachableTenantQuery },
  responses: {
    200: json(paged(ReachableTenantSchema).openapi("ReachableTenantPage")),
    400: errors[400],
    401: errors[401],
  },
});

const updateMe = createRoute({
  method: "patch",
  path: "/me",
  operationId: "updateMe",
  tags,
  security: USER_SECURITY,
  summary: "Change your own name",
  description: "Your display name as others see it (assignees, audit). Audited as user.profile_updated.",
  request: { body: jsonBody(UpdateMeBody) },
  responses: { 200: json(MeResponse), 400: errors[400], 401: errors[401] },
});

export const meTenantRoutes: Router = createRouter()
  .openapi(listMyTenants, async (c) => {
    const p = c.var.principal;
    if (p.kind !== "user") throw unauthenticated("A user credential is required");
    return c.json(await reachableTenants(c.var.control, p, c.req.valid("query")), 200);
  })
  .openapi(updateMe, async (c) => {
    const p = c.var.principal;
    if (p.kind !== "user") throw unauthenticated("A user credential is required");
    return c.json(await updateMyProfile(c.var.control, c.env, requestMeta(c), p, c.req.valid("json")), 200);
  });
