import type { ConnectedAppsLister } from "./modules/auth/hook-types";
import type { PersonalDataStep } from "./modules/compliance/personal-data";
import type { OutcomeSource } from "./modules/experiments/outcomes";
import type { ReplyDrafting } from "./modules/reviews/drafting/types";
import type { SolicitationConversionHook } from "./modules/reviews/hooks";

/**
 * Calls from a module into one that depends on it, so it cannot import it without the two modules
 * importing each other: solicitations import experiments (variant assignment), yet experiments count
 * solicitations; agents read reviews, yet reviews draft replies with an agent. The composition root (src/wiring.ts) installs every hook once, before the
 * first request or batch; reading one before then is a wiring bug and throws (no silent default).
 */
export interface Hooks {
  /** experiments -> solicitations: what happened to the solicitations sent under each variant */
  experimentOutcomes: OutcomeSource;
  /** reviews -> solicitations: statements and events that convert the solicitation a new review names */
  convertSolicitation: SolicitationConversionHook;
  /** contacts -> consent, solicitations, feedback: every kind of personal data linked to a contact (export, erasure, retention) */
  personalData: PersonalDataStep[];
  /** reviews -> agents: a reply drafted by the reply-drafter agent (agents read reviews through their tools) */
  draftReply: ReplyDrafting;
  /** auth -> oauth: a user's connected apps, named in the "your password was changed" mail (oauth signs people in through auth) */
  connectedApps: ConnectedAppsLister;
}

let installed: Hooks | null = null;

export const installHooks = (hooks: Hooks) => {
  installed = hooks;
};

export function hooks(): Hooks {
  if (!installed) throw new Error("hooks not installed: the composition root (src/wiring.ts) installs them");
  return installed;
}
