import { feedbackLinks, cycling } from "../lib/feedback-links.mjs";
import { measure } from "../lib/load.mjs";

/** The hosted HTML feedback page (server-rendered JSX) over the same 1,000 links. */
export default {
  name: "GET /f/{token}",
  async run(ctx) {
    const tokens = await feedbackLinks(ctx);
    return measure({ url: ctx.url, path: cycling(tokens, "/f/") });
  },
};
