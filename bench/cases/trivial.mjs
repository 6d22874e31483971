import { measure } from "../lib/load.mjs";

/**
 * The runtime's floor: a Worker that answers a static 200 (bench/lib/server.mjs, TRIVIAL_WORKER),
 * served the same way as the service. Every case reads as a ratio to it and to `/health`.
 */
export default {
  name: "trivial Worker (static 200)",
  run: ({ trivialUrl }) => measure({ url: trivialUrl, path: "/" }),
};
