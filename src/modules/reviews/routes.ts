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
import { canWrite } from "../../middleware/tenant";
import { IngestReviewBody, ReviewListQuery, ReviewSchema, SyncResultSchema, SyncReviewsBody } from "./schemas";
import { getReview, ingestReview, listReviews } from "./service";
import { requestSync } from "./sync";

const tags = ["Reviews"];

const list = createRoute({
  method: "get",
  path: "/v1/reviews",
  operationId: "listReviews",
  tags,
  security: TENANT_SECURITY,
  summary: "List reviews, newest first (by publishedAt, else createdAt); filters combine",
  request: { query: ReviewListQuery },
  responses: { 200: json(paged(ReviewSchema).openapi("ReviewPage")), ...stdErrors },
});

const ingest = createRoute({
  method: "post",
  path: "/v1/reviews/ingest",
  operationId: "ingestReviews",
  tags,
  security: TENANT_SECURITY,
  summary: "Ingest a review (tenant_user); the same siteType + externalReviewId again updates it",
  description:
    "Sentiment (rating and text, AFINN lexicon), topics (keyword taxonomy) and language (trigram detection) are computed when not given. " +
    "A new review gets an inbox item and the events review.created (and review.negative when negative).",
  middleware: [canWrite] as const,
  request: { body: jsonBody(IngestReviewBody) },
  responses: {
    201: json(ReviewSchema, "Created"),
    200: json(ReviewSchema, "An existing review updated"),
    ...stdErrors,
  },
});

const sync = createRoute({
  method: "post",
  path: "/v1/reviews/sync",
  operationId: "syncReviews",
  tags,
  security: TENANT_SECURITY,
  summary: "Queue a sync of every enabled review-site connection (tenant_user)",
  middleware: [canWrite] as const,
  request: { body: jsonBody(SyncReviewsBody) },
  responses: { 200: json(SyncResultSchema), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/reviews/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a review",
  operationId: "getReview",
  request: { params: IdParam },
  responses: { 200: json(ReviewSchema), ...stdErrorsWithNotFound },
});

export const reviewRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listReviews(svc(c), c.req.valid("query")), 200))
  .openapi(ingest, async (c) => {
    const { review, created } = await ingestReview(svc(c), c.req.valid("json"));
    return created ? c.json(review, 201) : c.json(review, 200);
  })
  .openapi(sync, async (c) => c.json(await requestSync(svc(c), c.req.valid("json")), 200))
  .openapi(get, async (c) => c.json(await getReview(svc(c), c.req.valid("param").id), 200));
