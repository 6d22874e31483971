import type { Message } from "../../providers/llm/workers-ai";

/** How many earlier messages of the conversation the model sees with a new one. */
export const HISTORY_WINDOW = 10;

type Turn = { role: "user" | "assistant"; content: string };

/** The conversation as the llm engine sends it (after its system prompt): the recent history, then the new message. */
export const conversationMessages = (history: readonly Turn[], message: string): Message[] => [
  ...history.slice(-HISTORY_WINDOW).map((m) => ({ role: m.role, content: m.content })),
  { role: "user", content: message },
];
