// What the pages' headless Chromium tests share: Debian's chromium (CI installs it) and a free port.
import { chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"];

/** Debian's chromium, headless, with nothing of its own on the network. */
export const launchChromium = () =>
  chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, "--disable-background-networking"] });

/** A port nothing listens on right now, for the Worker under test. */
export { freePort } from "../../../scripts/lib/free-port.mjs";
