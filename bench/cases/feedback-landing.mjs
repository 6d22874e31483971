import { feedbackLinks, cycling } from "../lib/feedback-links.mjs";
import { measure } from "../lib/load.mjs";

/** Public landing JSON over 1,000 distinct links of one location: signed token + per-location cache, views buffered. */
export default {
  name: "GET /v1/f/{token}",
  async run(ctx) {
    const tokens = await feedbackLinks(ctx);
    return measure({ url: ctx.url, path: cycling(tokens, "/v1/f/") });
  },
};
