import { ToolSkipped } from "./tools";
import type { AgentRun, DateRange } from "./types";

/** One planned read: a tool (an MCP read skill) and its input. */
export interface PlannedCall {
  tool: string;
  input: Record<string, unknown>;
}

/**
 * The rules engine's intent matching, in order: every intent whose pattern matches the question
 * contributes its reads (at most MAX_INTENTS intents); nothing matching falls back to DEFAULT_INTENTS.
 * docs/ai.md lists the table.
 */
export const INTENTS: { name: string; pattern: RegExp; calls(range: DateRange): PlannedCall[] }[] = [
  {
    name: "negative_reviews",
    pattern: /\b(negative|complain\w*|bad|unhappy|worst|angry|low[- ]rat\w*|1[- ]star|one[- ]star|2[- ]star)\b/i,
    calls: (r) =>
      [1, 2].map((rating) => ({ tool: "review.list", input: { rating, since: `${r.from}T00:00:00.000Z`, limit: 5 } })),
  },
  {
    name: "review_summary",
    pattern: /\b(ratings?|reviews?|stars?|average|sentiment)\b/i,
    calls: (r) => [{ tool: "review.summary", input: { since: `${r.from}T00:00:00.000Z` } }],
  },
  {
    name: "inbox",
    pattern: /\b(inbox|unanswered|respond\w*|repl(y|ies)|waiting|backlog|to ?do)\b/i,
    calls: () => [{ tool: "inbox.list", input: { status: "new", limit: 10 } }],
  },
  {
    name: "approvals",
    pattern: /\bapprov\w*/i,
    calls: () => [{ tool: "approval.list-pending", input: { limit: 10 } }],
  },
  {
    name: "campaigns",
    pattern: /\b(campaigns?|funnel|conversions?|sends?|requests?)\b/i,
    calls: () => [{ tool: "campaign.list", input: { isActive: true, limit: 10 } }],
  },
  {
    name: "score",
    pattern: /\b(score|reputation|health)\b/i,
    calls: () => [{ tool: "location.list", input: { isActive: true, limit: 5 } }],
  },
  {
    name: "competitors",
    pattern: /\bcompetitors?\b/i,
    calls: () => [{ tool: "competitor.list", input: { limit: 10 } }],
  },
  {
    name: "recommendations",
    pattern: /\b(recommend\w*|suggest\w*|improve\w*|should (i|we)|next steps?|what to do|priorit\w*)\b/i,
    calls: () => [{ tool: "recommendation.list", input: { status: "pending", limit: 10 } }],
  },
  {
    name: "surveys",
    pattern: /\b(surveys?|nps|csat|ces)\b/i,
    calls: () => [{ tool: "survey.list", input: { limit: 10 } }],
  },
  {
    name: "contacts",
    pattern: /\b(contacts?|suppress\w*|unsubscrib\w*|opt[- ]?outs?)\b/i,
    calls: () => [{ tool: "contact.list", input: { limit: 10 } }],
  },
  {
    name: "locations",
    pattern: /\b(locations?|stores?|branch(es)?|shops?)\b/i,
    calls: () => [{ tool: "location.list", input: { limit: 10 } }],
  },
];
export const MAX_INTENTS = 3;
export const DEFAULT_INTENTS = ["review_summary", "inbox", "recommendations"];

/** The tools the copilot and the assistant may call: the read skills the intents use. */
export const COPILOT_TOOLS = [
  "review.list",
  "review.summary",
  "inbox.list",
  "approval.list-pending",
  "campaign.list",
  "campaign.metrics",
  "location.list",
  "score.location",
  "competitor.list",
  "recommendation.list",
  "survey.list",
  "contact.list",
];

export function matchIntents(question: string): string[] {
  const hits = INTENTS.filter((i) => i.pattern.test(question)).map((i) => i.name);
  return hits.length ? hits.slice(0, MAX_INTENTS) : DEFAULT_INTENTS;
}

export interface Citation {
  index: number;
  tool: string;
  input: Record<string, unknown>;
  ids: string[];
}

// tool results are the JSON the tools return (shapes per tool, read field by field below)
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON from the tool table
type Item = Record<string, any>;
type Page = { data?: Item[]; total?: number };
const items = (r: unknown) => ((r as Page)?.data ?? []) as Item[];
const total = (r: unknown) => (r as Page)?.total ?? items(r).length;
const names = (xs: Item[], key = "name", n = 3) =>
  xs
    .slice(0, n)
    .map((x) => String(x[key]))
    .join(", ");
const quote = (s: string | null | undefined) => (s ? `"${s.length > 80 ? `${s.slice(0, 79)}…` : s}"` : null);

/** One sentence from one read, with the ids it rests on. */
// biome-ignore lint/suspicious/noExplicitAny: one tool's JSON result, its shape depends on `tool` (switch below)
export function summarize(tool: string, input: Record<string, unknown>, result: any): { text: string; ids: string[] } {
  const ids = items(result)
    .flatMap((x) => (typeof x.id === "string" ? [x.id] : []))
    .slice(0, 10);
  switch (tool) {
    case "review.summary": {
      if (!result.count) return { text: `No reviews since ${String(result.since ?? "the start")}.`, ids: [] };
      const d = result.distribution ?? {};
      return {
        text: `${result.count} reviews since ${result.since}, averaging ${Number(result.averageRating).toFixed(2)} stars (5 stars: ${d["5"] ?? 0}, 1 star: ${d["1"] ?? 0}).`,
        ids: [],
      };
    }
    case "review.list": {
      const xs = items(result);
      if (!xs.length)
        return { text: `No ${input.rating}-star reviews since ${String(input.since).slice(0, 10)}.`, ids };
      const q = quote(xs[0]!.text);
      return {
        text: `${total(result)} review${total(result) === 1 ? "" : "s"} with ${input.rating} star${input.rating === 1 ? "" : "s"}${q ? `, the latest: ${q}` : ""}.`,
        ids,
      };
    }
    case "inbox.list":
      return {
        text: total(result)
          ? `${total(result)} inbox item${total(result) === 1 ? " is" : "s are"} new and unanswered.`
          : "The inbox has no new items.",
        ids,
      };
    case "approval.list-pending":
      return {
        text: total(result)
          ? `${total(result)} drafted repl${total(result) === 1 ? "y awaits" : "ies await"} approval.`
          : "No replies are waiting for approval.",
        ids,
      };
    case "campaign.list":
      return {
        text: total(result)
          ? `${total(result)} active campaign${total(result) === 1 ? "" : "s"}: ${names(items(result))}.`
          : "No campaign is active.",
        ids,
      };
    case "location.list":
      return {
        text: total(result)
          ? `${total(result)} location${total(result) === 1 ? "" : "s"}: ${names(items(result))}.`
          : "No locations yet.",
        ids,
      };
    case "score.location":
      return {
        text: `Reputation score ${result.score} for location ${result.locationId} (computed ${String(result.computedAt).slice(0, 10)}).`,
        ids: [String(result.locationId)],
      };
    case "competitor.list":
      return {
        text: items(result).length
          ? `${items(result).length} competitors tracked: ${items(result)
              .slice(0, 3)
              .map((c) => `${c.name} (${c.averageRating ?? "no"} stars)`)
              .join(", ")}.`
          : "No competitors are tracked.",
        ids,
      };
    case "recommendation.list":
      return {
        text: items(result).length
          ? `${items(result).length} pending recommendation${items(result).length === 1 ? "" : "s"}, first: ${names(items(result), "title", 2)}.`
          : "No pending recommendations.",
        ids,
      };
    case "survey.list":
      return {
        text: total(result)
          ? `${total(result)} survey${total(result) === 1 ? "" : "s"}: ${names(items(result))}.`
          : "No surveys.",
        ids,
      };
    case "contact.list":
      return { text: `${total(result)} contact${total(result) === 1 ? "" : "s"} match.`, ids };
    default:
      return { text: `${tool} returned ${total(result)} item(s).`, ids };
  }
}

export interface AnswerEvents {
  onToolCall?(c: { index: number; tool: string; input: Record<string, unknown> }): void | Promise<void>;
  onToolResult?(c: { index: number; tool: string; ok: boolean; summary: string }): void | Promise<void>;
}

/**
 * The rules engine's answer to a question: match intents, call their read skills (and the scores of
 * the locations listed for a score question), one cited sentence per read.
 */
export async function answerByIntents(run: AgentRun, question: string, ev: AnswerEvents = {}) {
  const range = run.range!;
  const intents = matchIntents(question);
  const planned = intents.flatMap((name) => INTENTS.find((i) => i.name === name)!.calls(range));
  const citations: Citation[] = [];
  const sentences: string[] = [];
  const read = async (call: PlannedCall) => {
    const index = citations.length + 1;
    await ev.onToolCall?.({ index, ...call });
    try {
      const result = await run.tool(call.tool, call.input);
      const s = summarize(call.tool, call.input, result);
      citations.push({ index, tool: call.tool, input: call.input, ids: s.ids });
      sentences.push(`${s.text} [${index}]`);
      await ev.onToolResult?.({ index, tool: call.tool, ok: true, summary: s.text });
      return result;
    } catch (e) {
      citations.push({ index, tool: call.tool, input: call.input, ids: [] });
      // a tool outside the caller's scopes: the sentence names the missing scope
      sentences.push(
        `${e instanceof ToolSkipped ? e.message : `${call.tool} could not be read: ${e instanceof Error ? e.message : "error"}`} [${index}]`,
      );
      await ev.onToolResult?.({ index, tool: call.tool, ok: false, summary: "failed" });
      return null;
    }
  };
  for (const call of planned) {
    const result = await read(call);
    if (intents.includes("score") && call.tool === "location.list" && result) {
      for (const loc of items(result).slice(0, 5))
        await read({ tool: "score.location", input: { locationId: loc.id } });
    }
  }
  return { intents, answer: sentences.join(" "), citations };
}
