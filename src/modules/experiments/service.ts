import { and, desc, eq } from "drizzle-orm";
import { campaigns, type ExperimentStatus, type ExperimentVariant, experiments } from "../../db/schema";
import { hooks } from "../../hooks";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, invalidTransition, notFound, type ValidationIssue, validationError } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { tenantLocations, unknownLocation } from "../locations/refs";
import { usableTemplates } from "../templates/service";
import type { OutcomeSource } from "./outcomes";
import { computeResults } from "./results";
import { type CreateExperimentInput, type ExperimentRow, toExperiment, type UpdateExperimentInput } from "./schemas";

/** The experiment state machine: draft -> running <-> paused, and running or paused -> completed. */
export const EXPERIMENT_MOVES = {
  start: { from: ["draft"], to: "running", action: "experiment.started" },
  pause: { from: ["running"], to: "paused", action: "experiment.paused" },
  resume: { from: ["paused"], to: "running", action: "experiment.resumed" },
  complete: { from: ["running", "paused"], to: "completed", action: "experiment.completed" },
} as const satisfies Record<string, { from: readonly ExperimentStatus[]; to: ExperimentStatus; action: string }>;
export type ExperimentMove = keyof typeof EXPERIMENT_MOVES;

function assertMove(move: ExperimentMove, from: ExperimentStatus) {
  const m = EXPERIMENT_MOVES[move];
  if (!(m.from as readonly ExperimentStatus[]).includes(from)) throw invalidTransition(from, m.to, "Experiment");
  return m.to;
}

export async function listExperiments(ctx: ServiceContext, q: { campaignId?: string }) {
  const rows = await ctx.db
    .select()
    .from(experiments)
    .where(
      and(eq(experiments.tenantId, ctx.tenantId), q.campaignId ? eq(experiments.campaignId, q.campaignId) : undefined),
    )
    .orderBy(desc(experiments.createdAt), desc(experiments.id));
  return rows.map(toExperiment);
}

async function findRow(ctx: ServiceContext, id: string): Promise<ExperimentRow> {
  const row = await ctx.db
    .select()
    .from(experiments)
    .where(and(eq(experiments.id, id), eq(experiments.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Experiment");
  return row;
}

export const getExperiment = async (ctx: ServiceContext, id: string) => toExperiment(await findRow(ctx, id));

async function checkRefs(ctx: ServiceContext, input: CreateExperimentInput) {
  const [campaignRows, locationRows] = await ctx.db.batch([
    ctx.db
      .select({ id: campaigns.id })
      .from(campaigns)
      .where(and(eq(campaigns.id, input.campaignId ?? ""), eq(campaigns.tenantId, ctx.tenantId)))
      .limit(1),
    tenantLocations(ctx, input.locationId ? [input.locationId] : []),
  ]);
  const issues: ValidationIssue[] = [];
  if (input.campaignId && !campaignRows[0]) issues.push({ path: "campaignId", message: "Unknown campaign" });
  issues.push(...unknownLocation(input.locationId, locationRows));
  if (issues.length) throw validationError(issues);
  await usableTemplates(
    ctx,
    input.variants.flatMap((v, i) =>
      v.templateId ? [{ path: `variants.${i}.templateId`, templateId: v.templateId }] : [],
    ),
  );
}

export async function createExperiment(ctx: ServiceContext, input: CreateExperimentInput) {
  await checkRefs(ctx, input);
  const now = nowIso();
  const variants: ExperimentVariant[] = input.variants.map((v) => ({
    id: newId(),
    name: v.name,
    trafficPercent: v.trafficPercent,
    templateId: v.templateId ?? null,
    config: v.config ?? {},
  }));
  const row: ExperimentRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    campaignId: input.campaignId ?? null,
    locationId: input.locationId ?? null,
    name: input.name,
    hypothesis: input.hypothesis,
    status: "draft",
    variants,
    winnerVariantId: null,
    startedAt: null,
    completedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(experiments).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "experiment.created",
      resourceType: "experiment",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toExperiment(row);
}

/** Applies a state move; completing (with or without a winner) emits experiment.completed. */
async function move(
  ctx: ServiceContext,
  before: ExperimentRow,
  name: ExperimentMove,
  extra: Partial<ExperimentRow> = {},
) {
  const status = assertMove(name, before.status);
  const now = nowIso();
  const changes: Partial<ExperimentRow> = {
    ...extra,
    status,
    ...(name === "start" ? { startedAt: now } : {}),
    ...(status === "completed" ? { completedAt: now } : {}),
    updatedAt: now,
  };
  const after: ExperimentRow = { ...before, ...changes };
  const events =
    status === "completed"
      ? [
          eventStatement(ctx, "experiment.completed", {
            experimentId: after.id,
            campaignId: after.campaignId,
            winnerVariantId: after.winnerVariantId,
          }),
        ]
      : [];
  try {
    await commit(
      ctx,
      [
        ctx.db
          .update(experiments)
          .set(changes)
          .where(
            and(
              eq(experiments.id, before.id),
              eq(experiments.tenantId, ctx.tenantId),
              eq(experiments.status, before.status),
            ),
          ),
        auditStatement(ctx, {
          tenantId: ctx.tenantId,
          action: EXPERIMENT_MOVES[name].action,
          resourceType: "experiment",
          resourceId: before.id,
          previousState: before,
          nextState: after,
        }),
      ],
      events,
    );
  } catch (e) {
    if (isUniqueViolation(e))
      throw conflict("Another experiment of this campaign is running; pause or complete it first");
    throw e;
  }
  return toExperiment(after);
}

export const transitionExperiment = async (ctx: ServiceContext, id: string, name: ExperimentMove) =>
  move(ctx, await findRow(ctx, id), name);

/** Renames, edits the hypothesis, or picks a winner, which completes the experiment. */
export async function updateExperiment(ctx: ServiceContext, id: string, patch: UpdateExperimentInput) {
  const before = await findRow(ctx, id);
  const edits: Partial<ExperimentRow> = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.hypothesis !== undefined ? { hypothesis: patch.hypothesis } : {}),
  };
  if (patch.winnerVariantId !== undefined) {
    if (!before.variants.some((v) => v.id === patch.winnerVariantId)) {
      throw validationError([{ path: "winnerVariantId", message: "Not a variant of this experiment" }]);
    }
    return move(ctx, before, "complete", { ...edits, winnerVariantId: patch.winnerVariantId });
  }
  const after: ExperimentRow = { ...before, ...edits, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .update(experiments)
      .set({ ...edits, updatedAt: after.updatedAt })
      .where(and(eq(experiments.id, id), eq(experiments.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "experiment.updated",
      resourceType: "experiment",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toExperiment(after);
}

/**
 * Per-variant sends, deliveries, clicks and conversions with rates and z-tests against the control.
 * `outcomes` is where the counts come from (the solicitations once [sending] registers its source).
 */
export async function experimentResults(
  ctx: ServiceContext,
  id: string,
  outcomes: OutcomeSource = hooks().experimentOutcomes,
) {
  const e = await findRow(ctx, id);
  return computeResults(e, await outcomes(ctx, e));
}
