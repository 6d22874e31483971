import type { EventHandler } from "../../background/events";
import { runAutomation, triggeringEvents } from "./engine";

export const automationRulesHandler: EventHandler = {
  name: "automation-rules",
  select: triggeringEvents,
  handle: async (event, env) => void (await runAutomation(event, env)),
};
