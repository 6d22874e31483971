import { z } from "@hono/zod-openapi";
import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { loadWidgetData } from "./data";
import { CreateWidgetBody, PublicWidgetSchema, UpdateWidgetBody, WidgetListQuery, WidgetSchema } from "./schemas";
import { createWidget, deleteWidget, getWidget, listWidgets, updateWidget } from "./service";

// The widgets' operations in the catalogue (src/lib/operation.ts).

const tags = ["Widgets"];

export const listWidgetsOperation = defineOperation({
  name: "widget.list",
  operationId: "listWidgets",
  method: "get",
  path: "/v1/widgets",
  tags,
  summary: "List review widgets, newest first",
  request: { query: WidgetListQuery },
  output: paged(WidgetSchema).openapi("WidgetPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listWidgets(ctx, input),
});

export const createWidgetOperation = defineOperation({
  name: "widget.create",
  operationId: "createWidget",
  method: "post",
  path: "/v1/widgets",
  tags,
  summary: "Create a review widget (manager)",
  description:
    "A review showcase for the tenant's website: the reviews of a location (or every location) filtered by minRating, sites, count and order. " +
    "The filters are printed in the widget's footer (e.g. Showing 5★ and 4★ Google reviews, newest first) and the average shown covers every review " +
    "of the chosen sites. Embed with `embed.script` (shadow root) or `embed.iframe` (no JavaScript).",
  request: { body: CreateWidgetBody },
  status: 201,
  output: WidgetSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (ctx, input) => createWidget(ctx, input),
});

export const getWidgetOperation = defineOperation({
  name: "widget.get",
  operationId: "getWidget",
  method: "get",
  path: "/v1/widgets/{id}",
  tags,
  summary: "Get a review widget",
  request: { params: IdParam },
  output: WidgetSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => getWidget(ctx, input.id),
});

export const updateWidgetOperation = defineOperation({
  name: "widget.update",
  operationId: "updateWidget",
  method: "patch",
  path: "/v1/widgets/{id}",
  tags,
  summary: "Update a review widget (manager)",
  description: "isActive false: the public URLs answer 404. Changes show within a minute (browser cache 60 s).",
  request: { params: IdParam, body: UpdateWidgetBody },
  output: WidgetSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, { id, ...patch }) => updateWidget(ctx, id, patch),
});

export const deleteWidgetOperation = defineOperation({
  name: "widget.delete",
  operationId: "deleteWidget",
  method: "delete",
  path: "/v1/widgets/{id}",
  tags,
  summary: "Delete a review widget (manager)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  idempotent: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteWidget(ctx, input.id);
  },
});

export const reviewWidgetsOperation = defineOperation({
  name: "review.widgets",
  summary: "Review widgets on the business's website",
  description:
    "The review widgets the business embeds on its website: filters, the footer disclosing them, embed codes and " +
    "what each shows now. Use it for 'which reviews does our website show' or 'the embed code'.",
  input: z.object({
    locationId: z.string().min(1).max(64).optional(),
    limit: z.number().int().min(1).max(20).default(10),
  }),
  output: paged(WidgetSchema.extend({ showing: PublicWidgetSchema.pick({ summary: true, reviews: true }).nullable() })),
  scopes: ["read:reviews"],
  access: "read",
  variantOf: {
    operationId: "listWidgets",
    why: "each widget with what it shows right now (its reviews and average), read as the public widget reads them",
  },
  mcp: { title: "Review widgets on the business's website", agencyAware: true },
  handler: async (ctx, input) => {
    const page = await listWidgets(ctx, { locationId: input.locationId, limit: input.limit });
    const data = await Promise.all(
      page.data.map(async (w) => {
        const shown = w.isActive ? await loadWidgetData(ctx.db, w.publicKey, ctx.control) : null;
        return { ...w, showing: shown && { summary: shown.summary, reviews: shown.reviews } };
      }),
    );
    return { ...page, data };
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listWidgetsOperation,
  createWidgetOperation,
  getWidgetOperation,
  updateWidgetOperation,
  deleteWidgetOperation,
  reviewWidgetsOperation,
];
