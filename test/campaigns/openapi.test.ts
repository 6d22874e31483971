import { expect, it } from "vitest";
import { request } from "../helpers/http";

it("documents every campaigns, templates and experiments route in the OpenAPI document", async () => {
  const res = await request("GET", "/docs/openapi.json");
  expect(res.status).toBe(200);
  const ops = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
    Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
  );
  expect(ops).toEqual(
    expect.arrayContaining([
      "GET /v1/templates",
      "POST /v1/templates",
      "GET /v1/templates/{id}",
      "PATCH /v1/templates/{id}",
      "POST /v1/templates/{id}/approve",
      "POST /v1/templates/{id}/archive",
      "GET /v1/templates/{id}/preview",
      "POST /v1/templates/{id}/version",
      "GET /v1/locations/{id}/variables",
      "PUT /v1/locations/{id}/variables",
      "GET /v1/campaigns",
      "POST /v1/campaigns",
      "GET /v1/campaigns/{id}",
      "PATCH /v1/campaigns/{id}",
      "POST /v1/campaigns/{id}/activate",
      "POST /v1/campaigns/{id}/deactivate",
      "GET /v1/campaigns/{id}/templates",
      "POST /v1/campaigns/{id}/templates",
      "DELETE /v1/campaigns/{id}/templates/{bindingId}",
      "GET /v1/campaigns/{id}/sequence",
      "PUT /v1/campaigns/{id}/sequence",
      "DELETE /v1/campaigns/{id}/sequence",
      "GET /v1/experiments",
      "POST /v1/experiments",
      "GET /v1/experiments/{id}",
      "PATCH /v1/experiments/{id}",
      "POST /v1/experiments/{id}/start",
      "POST /v1/experiments/{id}/pause",
      "POST /v1/experiments/{id}/resume",
      "POST /v1/experiments/{id}/complete",
      "GET /v1/experiments/{id}/results",
    ]),
  );
  for (const name of [
    "Template",
    "Campaign",
    "CampaignTemplateBinding",
    "Sequence",
    "SequenceStep",
    "Experiment",
    "ExperimentResults",
    "TemplatePreview",
    "LocationVariables",
  ]) {
    expect(res.body.components.schemas, name).toHaveProperty(name);
  }
});
