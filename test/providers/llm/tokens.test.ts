import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { cl100k, parseTiktoken } from "../../../src/providers/llm/cl100k";
import { assertWithinTokenCap } from "../../../src/providers/llm/tokens";

// The tokenizer's ranks are read from gpt-tokenizer's own cl100k_base.tiktoken (a Text module, so the
// 1 MB of JavaScript the package generates from it is not compiled at every isolate's start-up:
// docs/performance.md). These tests pin that the counts are the package's own, token for token.
const SAMPLES = [
  "hello world",
  "Great service, friendly staff — would come back! 5/5 ⭐⭐⭐⭐⭐",
  "Très bon accueil, café délicieux. 非常好的服务。 とても良い。 Отличный сервис",
  '{"role":"user","content":"Reply to this review:\\n\\tThe wait was 45 minutes."}',
  "   leading spaces, trailing tabs\t\t\n\n\r\nand a 🧑🏽‍🍳 emoji sequence",
  "x".repeat(5_000),
];

describe("cl100k_base from the .tiktoken file", () => {
  it("parses the file into exactly the ranks gpt-tokenizer generates from it", async () => {
    const { default: tiktoken } = await import("gpt-tokenizer/data/cl100k_base.tiktoken");
    const { default: generated } = await import("gpt-tokenizer/bpeRanks/cl100k_base");
    const ranks = parseTiktoken(tiktoken);
    expect(ranks.length).toBe(generated.length);
    // entry by entry (a deep equality over 100,000 entries reports nothing useful when it fails)
    const same = (a: string | number[], b: string | number[]) =>
      typeof a === "string" ? a === b : Array.isArray(b) && a.join() === b.join();
    const differing = ranks.flatMap((r, i) => (same(r, generated[i] as string | number[]) ? [] : [i]));
    expect(differing).toEqual([]);
    // the byte-array entries (tokens that are not whole UTF-8 characters) are among them: 781 of them
    expect(ranks.filter((r) => Array.isArray(r))).toHaveLength(781);
  });

  it("counts every sample exactly as gpt-tokenizer's cl100k_base encoding does", async () => {
    const reference = await import("gpt-tokenizer/encoding/cl100k_base");
    const ours = SAMPLES.map((s) => cl100k().encode(s));
    expect(ours).toEqual(SAMPLES.map((s) => reference.encode(s)));
    expect(cl100k().encode("hello world")).toEqual([15339, 1917]);
    for (const s of SAMPLES) expect(await assertWithinTokenCap(s)).toBe(reference.countTokens(s));
  });

  it("refuses a text over the cap with 413 PAYLOAD_TOO_LARGE naming the tokenizer", async () => {
    const error = await assertWithinTokenCap("hello world again", 2).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: 2, tokenizer: "cl100k_base" } });
  });
});
