// setupFiles of the node project (vitest.config.mts): the tests' own fetches to the served Workers take a fresh
// connection each, never a kept-alive one workerd may be closing (scripts/lib/fresh-connections.mjs says why).
import { useFreshConnections } from "../../scripts/lib/fresh-connections.mjs";

useFreshConnections();
