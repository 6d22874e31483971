/**
 * The topic taxonomy: a topic is tagged when the text contains one of its keywords as a word or a
 * word prefix (e.g. "clean" matches "cleanliness"). Keep keywords specific: a keyword in two topics
 * tags both. Documented in docs/reviews.md.
 */
export const TOPIC_KEYWORDS: Record<string, string[]> = {
  staff: [
    "staff",
    "employee",
    "waiter",
    "waitress",
    "server",
    "receptionist",
    "cashier",
    "nurse",
    "doctor",
    "dentist",
    "hygienist",
    "technician",
    "manager",
    "team",
    "rude",
    "friendly",
    "polite",
    "helpful",
    "attentive",
    "courteous",
  ],
  service: ["service", "served", "customer care", "support"],
  price: [
    "price",
    "pricey",
    "pricing",
    "expensive",
    "cheap",
    "overpriced",
    "cost",
    "value",
    "bill",
    "charge",
    "fee",
    "afford",
    "ripoff",
    "rip-off",
    "money",
  ],
  wait_time: [
    "wait",
    "queue",
    "slow",
    "delay",
    "late",
    "forever",
    "took ages",
    "on time",
    "quick",
    "fast",
    "prompt",
    "minutes",
    "hours",
  ],
  cleanliness: [
    "clean",
    "dirty",
    "filthy",
    "messy",
    "hygien",
    "spotless",
    "smell",
    "stink",
    "sticky",
    "dust",
    "bathroom",
    "restroom",
    "toilet",
  ],
  quality: [
    "quality",
    "delicious",
    "tasty",
    "taste",
    "fresh",
    "stale",
    "bland",
    "broken",
    "defect",
    "flavor",
    "flavour",
    "portion",
    "product",
    "food",
    "meal",
    "result",
    "work was",
  ],
  booking: ["appointment", "booking", "book ", "reservation", "schedul", "cancel", "rebook"],
  communication: [
    "call back",
    "called",
    "phone",
    "email",
    "respond",
    "response",
    "answer",
    "explain",
    "informed",
    "communicat",
  ],
  location: ["parking", "location", "find the", "access", "directions", "neighborhood"],
  atmosphere: ["atmosphere", "ambiance", "ambience", "decor", "music", "noisy", "loud", "cozy", "comfortable", "vibe"],
};

export const TOPICS = Object.keys(TOPIC_KEYWORDS);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const MATCHERS = Object.entries(TOPIC_KEYWORDS).map(
  ([topic, words]) => [topic, new RegExp(`(?:^|[^\\p{L}])(?:${words.map(escapeRegExp).join("|")})`, "iu")] as const,
);

/** Topics the text mentions, in taxonomy order. */
export function extractTopics(text: string | null | undefined): string[] {
  if (!text) return [];
  return MATCHERS.filter(([, re]) => re.test(text)).map(([topic]) => topic);
}

/** Supplied topics, trimmed, lower-cased and de-duplicated. */
export const normaliseTopics = (topics: string[]) => [
  ...new Set(topics.map((t) => t.trim().toLowerCase()).filter(Boolean)),
];
