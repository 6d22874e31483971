import type { DraftInput } from "./engine";

/** The instruction model used when the optional `AI` binding is configured. */
export const WORKERS_AI_MODEL = "@cf/meta/llama-3.1-8b-instruct";

interface AiRunner {
  run(model: string, input: { messages: { role: string; content: string }[]; max_tokens?: number }): Promise<unknown>;
}

/**
 * Drafts with Workers AI. The built-in draft is passed as a reference so the model keeps to the
 * facts it uses; returns null on any failure so the caller falls back to the built-in draft.
 */
export async function draftWithWorkersAi(ai: AiRunner, input: DraftInput, reviewText: string | null, reference: string): Promise<string | null> {
  const system =
    `You write public replies from a business to customer reviews. Business: ${input.brand.name}. ` +
    `Voice: ${input.brand.brandVoice ?? "friendly"}. Tone: ${input.brand.brandTone ?? "warm"}. ` +
    `Reply in the review's language (${input.language ?? "en"}). Be specific, brief (under 120 words), never offer incentives, ` +
    `never ask for a review change, never invent facts. Output only the reply text.`;
  const user =
    `Review (${input.rating ?? "no"} stars, by ${input.authorName ?? "a customer"}, topics: ${input.topics.join(", ") || "none"}):\n` +
    `${reviewText ?? "(no text)"}\n\nA reference reply you may improve:\n${reference}` +
    (input.contact ? `\n\nContact for unhappy customers: ${input.contact}` : "");
  try {
    const out = (await ai.run(WORKERS_AI_MODEL, { messages: [{ role: "system", content: system }, { role: "user", content: user }], max_tokens: 400 })) as { response?: unknown };
    const text = typeof out?.response === "string" ? out.response.trim() : "";
    return text ? text.slice(0, 5000) : null;
  } catch (err) {
    console.warn(JSON.stringify({ level: "warn", message: "workers ai draft failed; using the built-in draft", error: String(err) }));
    return null;
  }
}
