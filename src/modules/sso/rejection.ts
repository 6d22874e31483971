/** Why a SAML response was refused: the only detail the caller (and the audit log) gets. */
export const SAML_FAILURE_REASONS = [
  "malformed",
  "weak_algorithm",
  "destination_mismatch",
  "signature_invalid",
  "issuer_mismatch",
  "audience_mismatch",
  "recipient_mismatch",
  "subject_confirmation_invalid",
  "expired",
  "not_yet_valid",
  "unknown_request",
  "replayed",
  "relay_state_mismatch",
  "idp_error",
  "email_missing",
  "user_not_found",
  "user_inactive",
  "user_not_eligible",
  "invalid_response",
] as const;
export type SamlFailureReason = (typeof SAML_FAILURE_REASONS)[number];

export class SamlRejection extends Error {
  constructor(
    readonly reason: SamlFailureReason,
    /** for the server log only; never sent to the caller */
    readonly internal?: string,
  ) {
    super(reason);
    this.name = "SamlRejection";
  }
}

const LIBRARY_MESSAGES: [RegExp, SamlFailureReason][] = [
  [/InResponseTo/i, "unknown_request"],
  [/not yet valid/i, "not_yet_valid"],
  [/expired/i, "expired"],
  [/audience/i, "audience_mismatch"],
  [/subject confirmation/i, "subject_confirmation_invalid"],
  [/SAML provider returned/i, "idp_error"],
  [/Missing SAML assertion|Unknown SAML response/i, "invalid_response"],
  [/signature|signed|reference|assertion/i, "signature_invalid"],
];

/** Maps an error thrown by @node-saml/node-saml to a reason code. */
export function reasonFromLibrary(err: unknown): SamlFailureReason {
  const message = err instanceof Error ? err.message : String(err);
  return LIBRARY_MESSAGES.find(([re]) => re.test(message))?.[1] ?? "invalid_response";
}
