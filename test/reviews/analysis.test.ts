import { describe, expect, it } from "vitest";
import { detectLanguage } from "../../src/modules/reviews/analysis/language";
import { analyseSentiment } from "../../src/modules/reviews/analysis/sentiment";
import { extractTopics } from "../../src/modules/reviews/analysis/topics";

type Label = "positive" | "neutral" | "negative";

/** Short reviews labelled by hand; some carry a star rating, most are judged on their text alone. */
const LABELLED: { text: string; rating?: number; label: Label }[] = [
  { text: "Amazing service, the staff were so friendly and helpful!", label: "positive" },
  { text: "Best dentist I have ever been to. Highly recommend.", label: "positive" },
  { text: "Great food and a lovely atmosphere.", label: "positive" },
  { text: "The team was professional and very thorough.", label: "positive" },
  { text: "Quick, painless and affordable. Will be back.", label: "positive" },
  { text: "Absolutely loved it, everything was perfect.", label: "positive" },
  { text: "Clean rooms and attentive staff, excellent stay.", label: "positive" },
  { text: "Wonderful experience from start to finish.", label: "positive" },
  { text: "The nurse was gentle and kind with my son.", label: "positive" },
  { text: "Delicious pizza, fast delivery, happy customer.", label: "positive" },
  { text: "Terrible service, the waiter was rude and dismissive.", label: "negative" },
  { text: "Waited over an hour, completely unacceptable.", label: "negative" },
  { text: "The bathroom was filthy and the floors were sticky.", label: "negative" },
  { text: "Overpriced and bland. Not worth the money.", label: "negative" },
  { text: "Worst experience ever, I will never come back.", label: "negative" },
  { text: "They lost my booking and nobody apologized.", label: "negative" },
  { text: "The food was cold and stale.", label: "negative" },
  { text: "Very disappointed with the quality of the repair.", label: "negative" },
  { text: "Unprofessional staff and a broken card machine.", label: "negative" },
  { text: "Horrible. Avoid this place.", label: "negative" },
  { text: "It was okay, nothing special.", label: "neutral" },
  { text: "Average food, average prices.", label: "neutral" },
  { text: "We came for lunch on Tuesday.", label: "neutral" },
  { text: "The store is next to the train station.", label: "neutral" },
  { text: "I had a cleaning appointment at 10am.", label: "neutral" },
  { text: "Service was fine.", label: "neutral" },
  { text: "Good coffee but the wait was long.", rating: 3, label: "neutral" },
  { text: "Friendly staff, although parking was a problem.", rating: 4, label: "positive" },
  { text: "Not great, not terrible.", rating: 3, label: "neutral" },
  { text: "Decent place.", rating: 5, label: "positive" },
  { text: "The manager fixed the issue quickly, thank you!", rating: 2, label: "neutral" },
  { text: "Had to wait 40 minutes past my appointment time.", rating: 2, label: "negative" },
  { text: "Loved the new menu!", rating: 5, label: "positive" },
  { text: "Rude receptionist and a dirty waiting room.", rating: 1, label: "negative" },
];

const results = LABELLED.map((c) => ({
  ...c,
  got: analyseSentiment({ text: c.text, rating: c.rating ?? null }).sentiment,
}));
const correct = results.filter((r) => r.got === r.label).length;
const accuracy = Math.round((correct / results.length) * 1000) / 10;

describe("sentiment", () => {
  it(`labels ${results.length} short reviews with ${accuracy}% accuracy (at least 80% required)`, () => {
    const misses = results.filter((r) => r.got !== r.label).map((r) => `${r.label} -> ${r.got}: ${r.text}`);
    expect(results.length).toBeGreaterThanOrEqual(30);
    expect(accuracy, misses.join("\n")).toBeGreaterThanOrEqual(80);
  });

  it("lets the rating decide for text the English lexicon cannot read, and text alone otherwise", () => {
    expect(analyseSentiment({ rating: 1, text: "Servicio pésimo", language: "es" })).toEqual({
      sentiment: "negative",
      score: -1,
    });
    expect(analyseSentiment({ rating: 5, text: null }).sentiment).toBe("positive");
    expect(analyseSentiment({ rating: 3, text: null }).sentiment).toBe("neutral");
    expect(analyseSentiment({ rating: null, text: "" })).toEqual({ sentiment: null, score: null });
    // a glowing text pulls a middling rating up; a furious one pulls a good rating down to neutral
    expect(analyseSentiment({ rating: 3, text: "Excellent, amazing, wonderful staff" }).sentiment).toBe("positive");
    expect(analyseSentiment({ rating: 4, text: "Horrible rude staff, terrible awful mess" }).sentiment).toBe("neutral");
  });
});

describe("topics", () => {
  it("tags topics from the keyword taxonomy", () => {
    expect(extractTopics("The staff were friendly but we waited 40 minutes and it was overpriced")).toEqual([
      "staff",
      "price",
      "wait_time",
    ]);
    expect(extractTopics("Spotless bathroom, delicious food")).toEqual(["cleanliness", "quality"]);
    expect(extractTopics("Could not get an appointment and nobody called back")).toEqual(["booking", "communication"]);
    expect(extractTopics("Lovely")).toEqual([]);
    expect(extractTopics(null)).toEqual([]);
  });

  it("matches words, not fragments inside other words", () => {
    // keywords match at the start of a word: "rebilling" contains "bill" but no word starts with it
    expect(extractTopics("rebilling")).toEqual([]);
  });
});

describe("language", () => {
  it("detects common languages and maps them to ISO 639-1", () => {
    expect(detectLanguage("The staff were wonderful and the food was delicious, we will come back")).toBe("en");
    expect(detectLanguage("El personal fue muy amable y la comida estaba deliciosa, volveremos pronto")).toBe("es");
    expect(detectLanguage("Le personnel était très gentil et la nourriture délicieuse, nous reviendrons")).toBe("fr");
    expect(detectLanguage("Das Personal war sehr freundlich und das Essen war köstlich, wir kommen wieder")).toBe("de");
  });

  it("does not guess on short text", () => {
    expect(detectLanguage("Great!")).toBeNull();
    expect(detectLanguage(null)).toBeNull();
  });
});
