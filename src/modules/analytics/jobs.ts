import { registerEventHandler } from "../../jobs/events";
import { applyEventsToRollups } from "./events";

registerEventHandler({ name: "analytics-rollups", handleBatch: applyEventsToRollups });
