import { z } from "@hono/zod-openapi";
import type { ServiceContext } from "../../lib/context";
import { validationError } from "../../lib/errors";
import { UpdateCampaignBody } from "../campaigns/schemas";
import { updateCampaign } from "../campaigns/service";
import { updateExperiment } from "../experiments/service";
import { UpdateLocationBody } from "../locations/schemas";
import { updateLocation } from "../locations/service";
import { CreateSlaRuleBody } from "../reviews/sla.schemas";
import { createSlaRule } from "../reviews/sla.service";

/**
 * What POST /v1/recommendations/{id}/apply can execute. Each kind runs through the normal service
 * (its validation, tenant checks and audit row), exactly as the equivalent REST call would.
 */
const ActionPayload = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("none") }).loose(),
  z.object({ kind: z.literal("create_sla_rule"), rule: z.record(z.string(), z.unknown()) }),
  z.object({
    kind: z.literal("update_location"),
    locationId: z.string(),
    patch: z.record(z.string(), z.unknown()),
    requiredInput: z.array(z.string()).default([]),
  }),
  z.object({ kind: z.literal("update_campaign"), campaignId: z.string(), patch: z.record(z.string(), z.unknown()) }),
  z.object({ kind: z.literal("complete_experiment"), experimentId: z.string(), winnerVariantId: z.string() }),
]);
export type ActionPayloadValue = z.infer<typeof ActionPayload>;
export const ACTION_KINDS = [
  "none",
  "create_sla_rule",
  "update_location",
  "update_campaign",
  "complete_experiment",
] as const;

const parse = <T extends z.ZodType>(schema: T, value: unknown, prefix: string): z.infer<T> => {
  const r = schema.safeParse(value);
  if (!r.success)
    throw validationError(r.error.issues.map((i) => ({ path: [prefix, ...i.path].join("."), message: i.message })));
  return r.data;
};

/** Runs the action; returns what the service returned (null for `none`). */
export async function executeAction(
  ctx: ServiceContext,
  payload: unknown,
  input: Record<string, unknown> = {},
): Promise<unknown> {
  const a = parse(ActionPayload, payload, "actionPayload");
  switch (a.kind) {
    case "none":
      return null;
    case "create_sla_rule":
      return createSlaRule(ctx, parse(CreateSlaRuleBody, a.rule, "actionPayload.rule"));
    case "update_location": {
      const missing = a.requiredInput.filter((k) => input[k] === undefined || input[k] === null || input[k] === "");
      if (missing.length)
        throw validationError(
          missing.map((k) => ({ path: `input.${k}`, message: "Required to apply this recommendation" })),
        );
      const extra = Object.fromEntries(a.requiredInput.map((k) => [k, input[k]]));
      return updateLocation(ctx, a.locationId, parse(UpdateLocationBody, { ...a.patch, ...extra }, "input"));
    }
    case "update_campaign":
      return updateCampaign(ctx, a.campaignId, parse(UpdateCampaignBody, a.patch, "actionPayload.patch"));
    case "complete_experiment":
      return updateExperiment(ctx, a.experimentId, { winnerVariantId: a.winnerVariantId });
  }
}
