import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { vi } from "vitest";
import { sendRecords } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import type { Env } from "../../src/env";
import { deliverSends } from "../../src/modules/solicitations/delivery";
import type { FetchLike } from "../../src/providers/messaging/types";
import { db } from "../helpers/seed";
import { standIn } from "../providers/messaging/stand-in";

/** One SENDS batch through the consumer, as the queue would hand it over; `threw` when the consumer crashed. */
export async function sendBatch(ids: string[], o: { env?: Env; attempts?: number; fetch?: FetchLike } = {}) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch(
    "sends",
    ids.map((solicitationId, i) => ({
      id: `m-${solicitationId}-${i}-${Math.random()}`,
      timestamp: new Date(),
      attempts: o.attempts ?? 1,
      body: { solicitationId },
    })),
  );
  const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
  let threw: unknown = null;
  try {
    await deliverSends(batch, o.env ?? env, shardDb(o.env ?? env, 0), ctx, { fetch: o.fetch });
  } catch (e) {
    threw = e;
  }
  const result = await getQueueResult(batch, ctx);
  const delays = retries.flatMap((r) => r.mock.calls.map(([x]) => x?.delaySeconds ?? 0));
  return { ...result, delays, threw };
}

/**
 * A SendGrid stand-in that answers each call with the next of `script` (then the last one again),
 * per recipient; every accepted message gets its own x-message-id. Accepted messages are counted
 * per solicitation (SendGrid's custom_args carry its id).
 */
export function sendgrid(script: (to: string, call: number) => Response | Promise<Response>) {
  const accepted = new Map<string, number>();
  const callsTo = new Map<string, number>();
  let n = 0;
  const api = standIn(async (_req, body) => {
    const payload = JSON.parse(body);
    const to: string = payload.personalizations[0].to[0].email;
    const call = (callsTo.get(to) ?? 0) + 1;
    callsTo.set(to, call);
    const res = await script(to, call);
    if (res.status === 202) {
      const sid: string = payload.custom_args.solicitation_id;
      accepted.set(sid, (accepted.get(sid) ?? 0) + 1);
      return new Response(null, { status: 202, headers: { "x-message-id": `sg-${sid}-${++n}` } });
    }
    return res;
  });
  return { ...api, accepted, callsTo };
}

export const ok = () => new Response(null, { status: 202 });
export const timeout = (): Promise<Response> =>
  Promise.reject(new DOMException("The operation was aborted due to timeout", "TimeoutError"));

export const claimOf = (id: string) => db().select().from(sendRecords).where(eq(sendRecords.solicitationId, id)).get();
