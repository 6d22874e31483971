import { withEmailFooter } from "../../modules/white-label/render";
import type { EffectiveBrand } from "../../modules/white-label/resolve";
import type { OutgoingMessage } from "./types";

/** An email from the product: account mail (account-mail.ts) or a tenant's notification (transactional.ts). */
export interface TransactionalEmail {
  tenantId: string | null;
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** The message with the white label's sender name and footer (unchanged for the default brand). */
export function brandedTransactional(email: TransactionalEmail, brand: EffectiveBrand | null): OutgoingMessage {
  if (!brand || brand.source === "default") return { ...email, channel: "email" };
  return { ...withEmailFooter(email, brand), fromName: brand.name, channel: "email" };
}
