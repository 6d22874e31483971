import { ApiError } from "../../lib/errors";

/** The spec's cap on what is sent to the model in one call (an agent.* input, a chat turn with its history). */
export const MAX_INPUT_TOKENS = 200_000;

/**
 * Counts the tokens of `text` with a real BPE tokenizer (cl100k_base, gpt-tokenizer) and refuses
 * anything over the cap with 413 PAYLOAD_TOO_LARGE. Stops counting at the cap, so a huge input
 * costs no more than the cap to refuse. Returns the count.
 */
export async function assertWithinTokenCap(text: string, limit = MAX_INPUT_TOKENS): Promise<number> {
  // loaded on first use: building the cl100k_base tables costs ~100 ms of CPU, once per isolate
  // (docs/performance.md)
  const { cl100k } = await import("./cl100k");
  const count = cl100k().isWithinTokenLimit(text, limit);
  if (count === false) {
    const message = `The model input is over the limit of ${limit.toLocaleString("en-US")} tokens`;
    throw new ApiError("PAYLOAD_TOO_LARGE", message, { limit, tokenizer: "cl100k_base" });
  }
  return count;
}
