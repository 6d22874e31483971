import { measure } from "../lib/load.mjs";

/** The runtime's own floor: every other case reads as a ratio to it. */
export default {
  name: "GET /health",
  run: ({ url }) => measure({ url, path: "/health" }),
};
