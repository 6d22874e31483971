import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getTableColumns } from "drizzle-orm";
import { solicitations } from "../../src/db/schema";
import type { Env } from "../../src/env";
import app from "../../src/index";
import { newId } from "../../src/lib/ids";
import { db } from "../helpers/seed";

export interface SseEvent {
  type: string;
  data: string;
  id: string;
}

/**
 * A Server-Sent Events parser following the WHATWG HTML "event stream interpretation": lines end in
 * CRLF, LF or CR; a leading BOM is dropped; ":" lines are comments; one space after the colon is
 * stripped; data lines are joined with LF; a blank line dispatches (an event with empty data is
 * dropped); the event type defaults to "message"; the last event id carries over.
 */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let data = "";
  let type = "";
  let lastId = "";
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  for (const line of lines) {
    if (line === "") {
      if (data !== "")
        events.push({ type: type || "message", data: data.endsWith("\n") ? data.slice(0, -1) : data, id: lastId });
      data = "";
      type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") type = value;
    else if (field === "data") data += `${value}\n`;
    else if (field === "id" && !value.includes("\0")) lastId = value;
  }
  return events;
}

/** A request through the Worker's app with some env values replaced (e.g. a stand-in AI binding). */
export async function requestWithEnv(
  overrides: Partial<Env> | Record<string, unknown>,
  method: string,
  path: string,
  o: { token: string; tenantId: string; body?: unknown },
) {
  const req = new Request(`http://localhost:8787${path}`, {
    method,
    headers: {
      authorization: `Bearer ${o.token}`,
      "x-tenant-id": o.tenantId,
      ...(o.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const res = await app.fetch(
    req as Parameters<typeof app.fetch>[0],
    { ...env, ...overrides } as Env,
    createExecutionContext(),
  );
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
  };
}

/** A stand-in for the Workers AI binding: returns the canned answers in order and records every call. */
export function standInAi(answers: (unknown | ((input: Record<string, unknown>) => unknown))[]) {
  const calls: { model: string; input: Record<string, unknown> }[] = [];
  return {
    calls,
    async run(model: string, input: Record<string, unknown>) {
      calls.push({ model, input: structuredClone(input) });
      const next = answers.shift();
      if (next === undefined) throw new Error("stand-in AI: no more canned answers");
      return typeof next === "function" ? (next as (i: Record<string, unknown>) => unknown)(input) : next;
    },
  };
}

/** Sent solicitations inserted as the sending pipeline leaves them (for funnel, timing and experiment figures). */
export async function seedSends(o: {
  tenantId: string;
  locationId: string;
  channel: "email" | "sms";
  count: number;
  converted: number;
  sentAt: string;
  campaignId?: string;
  experimentId?: string;
  variantId?: string;
  convertAfterDays?: number;
}) {
  const rows = Array.from({ length: o.count }, (_, k) => {
    const convertedAt =
      k < o.converted ? new Date(Date.parse(o.sentAt) + (o.convertAfterDays ?? 1) * 86_400_000).toISOString() : null;
    return {
      id: newId(),
      tenantId: o.tenantId,
      locationId: o.locationId,
      contactId: newId(),
      campaignId: o.campaignId ?? null,
      templateId: null,
      experimentId: o.experimentId ?? null,
      variantId: o.variantId ?? null,
      sequenceStepIndex: null,
      channel: o.channel,
      status: "DELIVERED" as const,
      shortLinkToken: newId(),
      destinationUrl: null,
      blockedReason: null,
      provider: "outbox",
      providerMessageId: null,
      failureReason: null,
      sentAt: o.sentAt,
      deliveredAt: o.sentAt,
      clickedAt: convertedAt,
      convertedAt,
      idempotencyKey: null,
      metadata: {},
      createdAt: o.sentAt,
      updatedAt: o.sentAt,
    };
  });
  // drizzle binds every column of the table (absent keys as null): D1 allows 100 bound values per statement
  const per = Math.floor(100 / Object.keys(getTableColumns(solicitations)).length);
  const d = db();
  const statements = [];
  for (let i = 0; i < rows.length; i += per) statements.push(d.insert(solicitations).values(rows.slice(i, i + per)));
  await d.batch(statements as [(typeof statements)[0], ...(typeof statements)[0][]]);
}
