// How the pages' Chromium is started: Debian's chromium (CI installs it), headless, with nothing of its own
// on the network. Shared by the run's one browser (test/setup/chromium.ts) and a test run outside vitest.
export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"];
export const CHROMIUM_LAUNCH_ARGS = [...CHROMIUM_ARGS, "--disable-background-networking"];
