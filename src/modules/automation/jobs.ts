import { registerEventHandler } from "../../jobs/events";
import "../integrations/jobs";
import "../jobs/jobs";
import "../webhooks/jobs";
import { runAutomation, triggeringEvents } from "./engine";

// one side-effect import in src/index.ts brings in this queue consumers and event handlers:
// webhooks (fan-out + delivery), the jobs queue (CRM imports) and the automation rules below
registerEventHandler({ name: "automation-rules", select: triggeringEvents, handle: async (event, env) => void (await runAutomation(event, env)) });
