import { registerEventHandler } from "../../jobs/events";
import { applyEventToRollups } from "./events";

registerEventHandler({ name: "analytics-rollups", handle: applyEventToRollups });
