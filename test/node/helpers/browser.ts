// What the pages' headless Chromium tests share: Debian's chromium (CI installs it) and a free port.
import { type AddressInfo, createServer } from "node:net";
import { chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"];

/** Debian's chromium, headless, with nothing of its own on the network. */
export const launchChromium = () =>
  chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, "--disable-background-networking"] });

/** A port nothing listens on right now, for the Worker under test. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
