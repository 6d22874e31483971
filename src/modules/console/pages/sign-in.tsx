/** @jsxImportSource hono/jsx */

/*
 * The signed-out pages (docs/console.md, "Signing in"): email and password, forgot, reset (the mailed
 * /reset-password link), invite (the mailed /setup-password link), and the end of single sign-on. Plain forms:
 * they work without script; every post is checked for this origin (guards.ts).
 */

const ErrorLine = ({ error }: { error?: string | null }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

export function SignInForm(props: { next?: string; email?: string; error?: string | null; brandName: string }) {
  return (
    <section class="card narrow" aria-labelledby="title">
      <h1 id="title">Sign in to {props.brandName}</h1>
      <ErrorLine error={props.error} />
      <form method="post" action="/app/sign-in" autocomplete="on">
        {props.next && <input type="hidden" name="next" value={props.next} />}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" required autocomplete="username" value={props.email ?? ""} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required minlength={8} autocomplete="current-password" />
        <div class="actions">
          <button type="submit">Sign in</button>
          <a href="/app/forgot-password">Forgot your password?</a>
        </div>
      </form>
      <p class="muted small">
        Signing in through your organization's identity provider? Use the sign-in link your organization gave you.
      </p>
    </section>
  );
}

export function ForgotForm(props: { sent?: boolean; error?: string | null }) {
  return (
    <section class="card narrow" aria-labelledby="title">
      <h1 id="title">Reset your password</h1>
      {props.sent ? (
        <p class="notice" role="status">
          If an account uses that address, we sent it a link to set a new password. The link works for one hour.
        </p>
      ) : (
        <>
          <p>We send a link to set a new password to your email address.</p>
          <ErrorLine error={props.error} />
          <form method="post" action="/app/forgot-password">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" required autocomplete="username" />
            <div class="actions">
              <button type="submit">Send the link</button>
            </div>
          </form>
        </>
      )}
      <p>
        <a href="/">Back to sign in</a>
      </p>
    </section>
  );
}

/** The new password twice; `name` only for an invite (the person's name is set with the password). */
/** A new password and its confirmation (field `confirm`): the reset, invite and own-page forms. */
export function NewPasswordFields(props: { name: string; help: string }) {
  return (
    <>
      <label for={props.name}>New password</label>
      <input
        id={props.name}
        name={props.name}
        type="password"
        required
        minlength={8}
        autocomplete="new-password"
        aria-describedby={`${props.name}-help`}
      />
      <p id={`${props.name}-help`} class="muted small">
        {props.help}
      </p>
      <label for="confirm">New password again</label>
      <input id="confirm" name="confirm" type="password" required minlength={8} autocomplete="new-password" />
    </>
  );
}

export function NewPasswordForm(props: {
  kind: "reset" | "invite";
  token: string;
  error?: string | null;
  name?: string;
}) {
  const invite = props.kind === "invite";
  return (
    <section class="card narrow" aria-labelledby="title">
      <h1 id="title">{invite ? "Welcome: set your password" : "Choose a new password"}</h1>
      <ErrorLine error={props.error} />
      <form method="post" action={invite ? "/setup-password" : "/reset-password"}>
        <input type="hidden" name="token" value={props.token} />
        {invite && (
          <>
            <label for="name">Your name</label>
            <input
              id="name"
              name="name"
              type="text"
              required
              maxlength={200}
              autocomplete="name"
              value={props.name ?? ""}
            />
          </>
        )}
        <NewPasswordFields
          name="password"
          help="At least 8 characters. A long phrase is easier to remember and harder to guess."
        />
        <div class="actions">
          <button type="submit">{invite ? "Set password and sign in" : "Set the new password"}</button>
        </div>
      </form>
    </section>
  );
}

export function TokenProblem(props: { kind: "reset" | "invite" | "sso" }) {
  const what =
    props.kind === "invite"
      ? "This invitation link is invalid, already used or expired. Ask the person who invited you to send a new one."
      : props.kind === "reset"
        ? "This link is invalid, already used or expired (reset links work for one hour, once)."
        : "This sign-in could not be completed: the link is invalid, already used or more than a minute old.";
  return (
    <section class="card narrow" aria-labelledby="title">
      <h1 id="title">This link does not work</h1>
      <p class="error" role="alert">
        {what}
      </p>
      <p>
        {props.kind === "reset" ? <a href="/app/forgot-password">Ask for a new link</a> : <a href="/">Go to sign in</a>}
      </p>
    </section>
  );
}

/** The end of single sign-on: the person confirms who is signing in (a code pushed by someone else signs in no one). */
export function SsoContinue(props: { email: string }) {
  return (
    <section class="card narrow" aria-labelledby="title">
      <h1 id="title">Continue signing in</h1>
      <p>
        Your organization's identity provider signed you in as <strong>{props.email}</strong>.
      </p>
      <form method="post" action="/sso/complete">
        <div class="actions">
          <button type="submit">Continue as {props.email}</button>
          <a href="/">This is not me</a>
        </div>
      </form>
    </section>
  );
}
