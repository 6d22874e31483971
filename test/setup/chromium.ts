// globalSetup of the node project (vitest.config.mts): one headless Chromium for the run, which every page
// test connects to (test/node/helpers/browser.ts) instead of launching its own (a few seconds of CPU each on
// the 2-core CI machine). Each test still works in its own browser context, closed when it disconnects.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_LAUNCH_ARGS } from "../node/helpers/browser-launch";

export default async function sharedChromium(): Promise<(() => Promise<void>) | undefined> {
  // none installed: the page tests skip themselves (describe.skipIf)
  if (process.env.CHROMIUM_WS_ENDPOINT || !existsSync(CHROMIUM)) return undefined;
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_LAUNCH_ARGS });
  // set before vitest starts the node project's workers, which inherit the environment
  process.env.CHROMIUM_WS_ENDPOINT = server.wsEndpoint();
  return async () => {
    delete process.env.CHROMIUM_WS_ENDPOINT;
    await server.close();
  };
}
