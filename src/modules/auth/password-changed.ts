import type { Env } from "../../env";
import { hooks } from "../../hooks";
import { log } from "../../lib/log";
import { workingKeysCreatedBy } from "../api-keys/service";
import { sendPasswordChangedEmail } from "../users/tokens";

/**
 * "Your password was changed": after a reset or a change, the person learns it happened, that every
 * earlier session ended, and which credentials did not end with it: the apps they connected (OAuth
 * grants, disconnected on the console's /app/connected-apps) and the API keys they minted (tenant credentials,
 * revoked by a tenant admin). Sent after the change committed; a failure to send is logged, never
 * undoes the change.
 */
export async function notifyPasswordChanged(
  env: Env,
  user: { id: string; email: string },
  control: Parameters<typeof workingKeysCreatedBy>[0],
  at: Date,
): Promise<void> {
  try {
    const [apps, keys] = await Promise.all([
      hooks()
        .connectedApps(env, user.id)
        .catch((err) => {
          log.warn("connected apps not listed in the password mail", { error: String(err) });
          return null;
        }),
      workingKeysCreatedBy(control, user.id, at),
    ]);
    await sendPasswordChangedEmail(env, { userId: user.id, to: user.email, at, apps, keys });
  } catch (err) {
    log.error("password changed email failed", { error: String(err) });
  }
}
