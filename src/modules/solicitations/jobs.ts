import { createDb } from "../../db/client";
import { CRONS, registerSweep } from "../../jobs/cron";
import { registerQueueConsumer } from "../../jobs/queue";
import { registerOutcomeSource } from "../experiments/outcomes";
import { registerSolicitationConversionHook } from "../reviews/hooks";
import { registerSolicitationCreator } from "../sequences/creator";
import { convertSolicitation, outcomesFromSolicitations } from "./hooks";
import { deliverSends } from "./delivery";
import { purgeExpiredIdempotencyKeys } from "./idempotency";
import { createSequenceStep } from "./sequence-step";
import { sweepStalePending } from "./stale";

registerQueueConsumer("sends", (batch, env, ctx) => deliverSends(batch, env, ctx));

registerSolicitationConversionHook(convertSolicitation);
registerOutcomeSource(outcomesFromSolicitations);
registerSolicitationCreator(createSequenceStep);

registerSweep(CRONS.frequent, { name: "solicitations-stale-pending", run: (env, now) => sweepStalePending(env, now).then(() => undefined) });
registerSweep(CRONS.frequent, { name: "idempotency-keys-purge", run: (env, now) => purgeExpiredIdempotencyKeys(createDb(env.DB), now).then(() => undefined) });
