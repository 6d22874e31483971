import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
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
import {
  CreateReviewLinkBody,
  LocationReviewUrlsSchema,
  ReviewLinkListQuery,
  ReviewLinkSchema,
  ReviewLinkStatsQuery,
  ReviewLinkStatsSchema,
  UpdateReviewLinkBody,
} from "./schemas";
import {
  createReviewLink,
  deleteReviewLink,
  getReviewLink,
  listReviewLinks,
  locationReviewUrls,
  reviewLinkStats,
  updateReviewLink,
} from "./service";

const tags = ["Review links"];

const reviewUrls = createRoute({
  method: "get",
  path: "/v1/locations/{id}/review-urls",
  tags,
  security: TENANT_SECURITY,
  summary: "A location's write-a-review URLs",
  operationId: "listLocationReviewUrls",
  description:
    "Google: https://search.google.com/local/writereview?placeid={googlePlaceId} (else the Google Business URL); Yelp and Facebook from the location's, else its brand's, ids or URLs. null: the site is not set up.",
  request: { params: IdParam },
  responses: { 200: json(LocationReviewUrlsSchema), ...stdErrorsWithNotFound },
});

const list = createRoute({
  method: "get",
  path: "/v1/review-links",
  tags,
  security: TENANT_SECURITY,
  summary: "List review links, newest first",
  operationId: "listReviewLinks",
  request: { query: ReviewLinkListQuery },
  responses: { 200: json(paged(ReviewLinkSchema).openapi("ReviewLinkPage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/review-links",
  tags,
  security: TENANT_SECURITY,
  summary: "Create a review link (manager)",
  operationId: "createReviewLink",
  description:
    "A public short link `/l/{slug}` for a location: each open is sent to one review site drawn at random by `weights` " +
    "(e.g. 70% Google, 20% Yelp, 10% Facebook), never by anything about the customer. A site the location has no page on gives its share to the others. " +
    "Print `qrSvgUrl`/`qrPngUrl` at the counter: scans are counted with source qr.",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateReviewLinkBody) },
  responses: { 201: json(ReviewLinkSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/review-links/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a review link",
  operationId: "getReviewLink",
  request: { params: IdParam },
  responses: { 200: json(ReviewLinkSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/review-links/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update a review link (manager)",
  operationId: "updateReviewLink",
  description:
    "Rename, change the weights, or deactivate (isActive false: the link and its QR code answer 404 until reactivated).",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(UpdateReviewLinkBody) },
  responses: { 200: json(ReviewLinkSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/review-links/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Delete a review link and its click counts (manager)",
  operationId: "deleteReviewLink",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

const stats = createRoute({
  method: "get",
  path: "/v1/review-links/{id}/stats",
  tags,
  security: TENANT_SECURITY,
  summary: "Opens of a review link by source (link, qr) and site",
  operationId: "getReviewLinkStats",
  request: { params: IdParam, query: ReviewLinkStatsQuery },
  responses: { 200: json(ReviewLinkStatsSchema), ...stdErrorsWithNotFound },
});

export const reviewLinkRoutes: Router = createRouter()
  .openapi(reviewUrls, async (c) => c.json(await locationReviewUrls(svc(c), c.req.valid("param").id), 200))
  .openapi(list, async (c) => c.json(await listReviewLinks(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createReviewLink(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getReviewLink(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) =>
    c.json(await updateReviewLink(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(remove, async (c) => {
    await deleteReviewLink(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(stats, async (c) =>
    c.json(await reviewLinkStats(svc(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );
