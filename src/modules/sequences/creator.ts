import type { SolicitationCreator } from "./types";

let creator: SolicitationCreator | null = null;

/** The sending module registers how a sequence step becomes a solicitation (one call, at import). */
export const registerSolicitationCreator = (fn: SolicitationCreator) => {
  creator = fn;
};

/** null until the sending module has registered: the sweep then leaves due steps waiting. */
export const solicitationCreator = () => creator;
