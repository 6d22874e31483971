// How the pages' Chromium is started: Debian's chromium (CI installs it), headless, with nothing of its own
// on the network. Shared by the run's one browser (test/setup/chromium.ts), a test run outside vitest and a
// browser a test needs with a flag of its own (white-label-page).
export const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"];
export const CHROMIUM_LAUNCH_ARGS = [
  ...CHROMIUM_ARGS,
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Chromium 13x opens two omnibox-popup WebUI renderers for every window, and each browser context is a
  // window: ~0.2 s of CPU per context that a test never uses (measured: 10 contexts 8.1 -> 5.9 s CPU)
  "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
];
