import { z } from "@hono/zod-openapi";
import { draftReply } from "../../reviews/drafting/engine";
import { PHRASES } from "../../reviews/drafting/phrases";
import type { ReviewContext } from "../../reviews/review-context";
import { defineAgent } from "../define";
import { Evidences } from "../types";

/** A reply must never offer compensation for the review nor ask the reviewer to change or remove it. */
export const COMPENSATION =
  /\b(refund\w*|discount\w*|voucher\w*|coupon\w*|compensat\w*|gift ?cards?|reimburs\w*|free (?:meal|night|stay|service|visit|item|drink|dessert)|on the house|reembols\w*|descuento\w*|rembours\w*|réduction|gutschein\w*|erstatt\w*|rabatt\w*)/i;
export const RATING_CHANGE =
  /\b(?:change|update|revise|remove|delete|edit|raise|reconsider|amend)\b[^.!?\n]{0,30}\b(?:your|the|this)\s+(?:rating|review|stars?)\b/i;

export const replyText = z
  .string()
  .min(1)
  .max(5000)
  .refine((t) => !COMPENSATION.test(t), {
    message: "A reply must not offer compensation, refunds, discounts or free items",
  })
  .refine((t) => !RATING_CHANGE.test(t), {
    message: "A reply must not ask the reviewer to change or remove the review or rating",
  });

const input = z.object({ reviewId: z.string().min(1).max(64) });
const output = z.object({
  text: replyText,
  language: z.string().describe("the language the reply is written in (the review's)"),
  topicsAddressed: z.array(z.string()),
  evidence: Evidences,
});

/** The internal reply drafter behind POST /v1/reviews/{id}/responses {useAi} and the create_response_draft action. */
export const replyDrafter = defineAgent({
  name: "agent.reply-drafter",
  title: "Review reply drafter",
  description: "Drafts a public reply to a review in the review's language and the brand's voice.",
  input,
  output,
  systemPrompt:
    "You write a business's public reply to a customer review. Read the review with review.get. Reply in the review's language, " +
    "address the topics it raises, follow the brand's voice and tone, stay under 120 words, never offer compensation, refunds, " +
    "discounts or free items, never ask the reviewer to change or remove the review or rating, never invent facts. For an unhappy " +
    "reviewer give the location's contact.",
  tools: ["review.get"],
  range: () => null,
  exposed: false,
  async rules(run, i) {
    const c = await run.tool<ReviewContext>("review.get", { reviewId: i.reviewId });
    const lang = c.review.language?.slice(0, 2).toLowerCase() ?? "en";
    const text = draftReply({
      reviewId: c.review.id,
      rating: c.review.rating,
      sentiment: c.review.sentiment,
      topics: c.review.topics,
      authorName: c.review.authorName,
      language: c.review.language,
      brand: c.brand,
      contact: c.contact,
    });
    const language = lang in PHRASES ? lang : "en";
    return {
      text,
      language,
      topicsAddressed: c.review.topics.filter((t) => t in PHRASES[language]!.topics).slice(0, 2),
      evidence: [
        { source: "review.get", id: c.review.id, label: "rating", value: c.review.rating },
        { source: "review.get", id: c.brand.id, label: "brand voice", value: c.brand.brandVoice },
      ],
    };
  },
});
