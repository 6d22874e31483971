import type { Env } from "../../env";
import { ApiError } from "../../lib/errors";

/**
 * Login throttling, counted in the RATE_LIMITER Durable Object per email and per client IP.
 * Failures are counted from the first one for LOGIN_FAILURE_WINDOW_SECONDS. From `slowAfter`
 * failures each further attempt waits LOGIN_DELAY_STEP_MS more (capped at LOGIN_MAX_DELAY_MS);
 * from `lockAfter` failures attempts are refused with 429 RATE_LIMITED and Retry-After until the
 * window closes. A successful login clears the email's count (not the IP's).
 */
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;
export const LOGIN_LIMITS = {
  email: { slowAfter: 3, lockAfter: 10 },
  ip: { slowAfter: 20, lockAfter: 100 },
} as const;
export const LOGIN_DELAY_STEP_MS = 100;
export const LOGIN_MAX_DELAY_MS = 1_000;

type Subject = keyof typeof LOGIN_LIMITS;

const limiter = (env: Env, subject: Subject, value: string) =>
  env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`login:${subject}:${value}`));

export interface LoginKeys {
  email: string;
  ip: string | null;
}

const subjects = (k: LoginKeys) =>
  (k.ip
    ? [
        ["email", k.email],
        ["ip", k.ip],
      ]
    : [["email", k.email]]) as [Subject, string][];

/** Refuses (429) or delays the attempt according to the failures recorded so far. */
export async function throttleLogin(env: Env, keys: LoginKeys): Promise<void> {
  const states = await Promise.all(
    subjects(keys).map(async ([subject, value]) => ({
      subject,
      ...(await limiter(env, subject, value).failures(LOGIN_FAILURE_WINDOW_SECONDS)),
    })),
  );
  const locked = states.filter((s) => s.count >= LOGIN_LIMITS[s.subject].lockAfter);
  if (locked.length) {
    const retryAfter = Math.max(...locked.map((s) => s.retryAfter));
    throw new ApiError(
      "RATE_LIMITED",
      "Too many failed logins; try again later",
      { retryAfter },
      { "Retry-After": String(retryAfter) },
    );
  }
  const delay = Math.max(
    0,
    ...states.map((s) => (s.count - LOGIN_LIMITS[s.subject].slowAfter + 1) * LOGIN_DELAY_STEP_MS),
  );
  if (delay > 0) await new Promise((r) => setTimeout(r, Math.min(delay, LOGIN_MAX_DELAY_MS)));
}

export async function recordLoginFailure(env: Env, keys: LoginKeys): Promise<void> {
  await Promise.all(
    subjects(keys).map(([subject, value]) => limiter(env, subject, value).recordFailure(LOGIN_FAILURE_WINDOW_SECONDS)),
  );
}

export const clearLoginFailures = (env: Env, email: string) => limiter(env, "email", email).clearFailures();
