import type { Sentiment } from "../../../db/schema";
import { PHRASES, type Voice } from "./phrases";

export interface DraftInput {
  reviewId: string;
  rating: number | null;
  sentiment: Sentiment | null;
  topics: string[];
  authorName: string | null;
  language: string | null;
  brand: { name: string; brandVoice: string | null; brandTone: string | null };
  /** where an unhappy reviewer can reach the business */
  contact: string | null;
}

const VOICES: Voice[] = ["professional", "friendly", "casual"];

/** A stable small number from the review id, so the same review always gets the same wording. */
function pick<T>(options: T[], seed: string): T {
  let h = 0;
  for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return options[h % options.length]!;
}

/** The first name, unless the site shows an anonymous placeholder. */
function firstName(author: string | null): string | null {
  const name = author?.trim();
  if (!name || /anonymous|google user|a customer|^guest$/i.test(name)) return null;
  return name.split(/\s+/)[0]!;
}

function mood(input: DraftInput): Sentiment {
  if (input.sentiment) return input.sentiment;
  if (input.rating == null) return "neutral";
  return input.rating >= 4 ? "positive" : input.rating <= 2 ? "negative" : "neutral";
}

/**
 * The built-in drafting engine: a reply assembled from the review (rating/sentiment, up to two
 * topics, the reviewer's first name, its language when supported, else English) and the brand's
 * voice (professional, friendly, casual) and tone (warm, formal, empathetic). Deterministic.
 */
export function draftReply(input: DraftInput): string {
  const lang = input.language?.slice(0, 2).toLowerCase() ?? "en";
  const p = PHRASES[lang] ?? PHRASES.en!;
  const voice: Voice = VOICES.find((v) => input.brand.brandVoice?.toLowerCase().includes(v)) ?? "friendly";
  const tone = input.brand.brandTone?.toLowerCase() ?? "";
  const m = mood(input);
  const name = firstName(input.authorName);
  const topicNames = input.topics
    .map((t) => p.topics[t])
    .filter((t): t is string => Boolean(t))
    .slice(0, 2);
  const topic = topicNames.join(` ${p.and} `);
  const fill = (s: string) =>
    s
      .replaceAll("{name}", name ?? "")
      .replaceAll("{brand}", input.brand.name)
      .replaceAll("{topic}", topic);

  const lines: string[] = [];
  if (tone.includes("formal") && m !== "negative") lines.push(p.formalThanks);
  else lines.push(pick(p.thanks[m], input.reviewId));
  if (m === "positive") {
    if (topic) lines.push(p.topicPositive);
    if (tone.includes("warm")) lines.push(p.warmLine);
    lines.push(pick(p.positiveClose, input.reviewId));
  } else if (m === "neutral") {
    lines.push(p.neutralClose.replace("{topicHint}", topic ? ` (${topic})` : ""));
  } else {
    if (tone.includes("empath") || tone.includes("warm")) lines.push(p.empathyLine);
    if (topic) lines.push(p.topicNegative);
    lines.push(input.contact ? p.contact.replace("{contact}", input.contact) : p.contactFallback);
  }
  const greeting = name ? p.greeting.named[voice] : p.greeting.anonymous[voice];
  return [fill(greeting), fill(lines.join(" ")), fill(p.signoff[voice])].join("\n\n");
}
