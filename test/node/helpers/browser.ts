// What the pages' headless Chromium tests share: the run's one browser and a free port.
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_LAUNCH_ARGS } from "./browser-launch";

export { CHROMIUM, CHROMIUM_LAUNCH_ARGS } from "./browser-launch";

/**
 * The run's Chromium (test/setup/chromium.ts), connected to; or, where no run started one (a file run on its
 * own outside the node project), one launched for the caller. `close()` ends this connection's contexts
 * (or the launched browser).
 */
export const launchChromium = () =>
  process.env.CHROMIUM_WS_ENDPOINT
    ? chromium.connect(process.env.CHROMIUM_WS_ENDPOINT)
    : chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_LAUNCH_ARGS });

/** A port nothing listens on right now, for the Worker under test. */
export { freePort } from "../../../scripts/lib/free-port.mjs";
