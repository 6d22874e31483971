import type { Env } from "../../env";
import { backoffSeconds } from "../../lib/backoff";
import { log } from "../../lib/log";
import type { JobMessage, JobRow } from "./schemas";

export type FetchFn = typeof fetch;

const realFetch: FetchFn = (...args) => fetch(...args);
let jobsFetch: FetchFn = realFetch;

/** Test seam: where job runners' outbound requests go (a stand-in in tests); no argument restores fetch. */
export const setJobsFetch = (fn?: FetchFn) => {
  jobsFetch = fn ?? realFetch;
};

/** One step of a job: done (or nothing to do), continue in a follow-up message, or retry this one. */
export type JobStep =
  | { kind: "done" }
  | { kind: "skipped" }
  | { kind: "continue" }
  | { kind: "retry"; delaySeconds: number | null };
export type JobRunner = (env: Env, msg: JobMessage, attempt: number, fetchFn: FetchFn) => Promise<JobStep>;

/** Job kind -> the runner that advances it; the composition root gives one for every kind. */
export type JobRunners = Record<JobRow["type"], JobRunner>;

const isJobMessage = (b: unknown): b is JobMessage =>
  Boolean(b) &&
  typeof (b as JobMessage).type === "string" &&
  typeof (b as JobMessage).jobId === "string" &&
  typeof (b as JobMessage).tenantId === "string";

/**
 * JOBS consumer: each message advances one job by one bounded step. A job that has more to do
 * sends itself a follow-up message (its progress lives in the job row, so redelivery resumes).
 */
export const jobsConsumer =
  (runners: JobRunners) =>
  (batch: MessageBatch<unknown>, env: Env): Promise<void> =>
    consumeJobs(runners, batch, env, { fetch: jobsFetch });

async function consumeJobs(runners: JobRunners, batch: MessageBatch<unknown>, env: Env, deps: { fetch: FetchFn }) {
  for (const message of batch.messages) {
    const body = message.body;
    const runner = isJobMessage(body) ? runners[body.type] : undefined;
    if (!isJobMessage(body) || !runner) {
      log.warn("unknown jobs message dropped", { id: message.id });
      message.ack();
      continue;
    }
    try {
      const step = await runner(env, body, message.attempts, deps.fetch);
      if (step.kind === "retry") {
        message.retry({ delaySeconds: step.delaySeconds ?? backoffSeconds(message.attempts) });
        continue;
      }
      if (step.kind === "continue") await env.JOBS.send(body);
      message.ack();
    } catch (err) {
      log.error("job step failed", { jobId: body.jobId, error: String(err) });
      message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  }
}
