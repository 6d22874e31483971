// SMTP account mail against a local plaintext SMTP server, from the built Worker in workerd (real
// cloudflare:sockets): a STARTTLS sender refuses a server that does not offer STARTTLS before AUTH,
// so neither the password nor the reset token crosses the wire in clear; plaintext is accepted only
// as configured ("plain") to a loopback sink in a local environment (docs/messaging.md).
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BOOTSTRAP_SECRET_HEADER } from "../../bench/lib/server.mjs";
import { freePort } from "./helpers/browser";
import { startWorker } from "./helpers/worker-server";

interface Session {
  commands: string[];
  closed: boolean;
}

/** A plaintext SMTP server that never offers STARTTLS; records every command of every connection. */
function plaintextSmtp() {
  const sessions: Session[] = [];
  const server: Server = createServer((socket: Socket) => {
    const s: Session = { commands: [], closed: false };
    sessions.push(s);
    let buffer = "";
    let inData = false;
    socket.on("close", () => (s.closed = true));
    socket.on("error", () => undefined);
    socket.write("220 sink.test ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (let i = buffer.indexOf("\r\n"); i >= 0; i = buffer.indexOf("\r\n")) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (inData) {
          s.commands.push(`DATA> ${line}`);
          if (line === ".") {
            inData = false;
            socket.write("250 queued\r\n");
          }
          continue;
        }
        s.commands.push(line);
        const verb = line.split(" ")[0]!.toUpperCase();
        if (verb === "EHLO") socket.write("250-sink.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n");
        else if (verb === "AUTH") socket.write("235 2.7.0 accepted\r\n");
        else if (verb === "DATA") {
          inData = true;
          socket.write("354 go ahead\r\n");
        } else if (verb === "QUIT") socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  return { server, sessions };
}

const PASSWORD = "correct horse battery";
const smtpServers: Server[] = [];
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});
afterAll(() => {
  for (const s of smtpServers) s.close();
});

/** The Worker with the platform sender on the local SMTP server, a bootstrapped admin, and a reset asked for. */
async function resetThroughPlatformSmtp(security: string) {
  const smtp = plaintextSmtp();
  smtpServers.push(smtp.server);
  const smtpPort = await freePort();
  await new Promise<void>((resolve) => smtp.server.listen(smtpPort, "127.0.0.1", resolve));
  worker = await startWorker({
    vars: {
      ENVIRONMENT: "development",
      PLATFORM_EMAIL_PROVIDER: "smtp",
      PLATFORM_EMAIL_FROM_ADDRESS: "accounts@platform.test",
      PLATFORM_EMAIL_FROM_NAME: "Reputation Ops",
      PLATFORM_SMTP_HOST: "127.0.0.1",
      PLATFORM_SMTP_PORT: String(smtpPort),
      PLATFORM_SMTP_SECURITY: security,
      PLATFORM_SMTP_USERNAME: "platform-user",
      PLATFORM_SMTP_PASSWORD: "platform-smtp-password",
    },
  });
  const boot = await fetch(`${worker.base}/bootstrap`, {
    method: "POST",
    headers: { "content-type": "application/json", ...BOOTSTRAP_SECRET_HEADER },
    body: JSON.stringify({
      tenantName: "Mail Co",
      tenantSlug: "mail-co",
      adminEmail: "owner@mail.test",
      adminPassword: PASSWORD,
      adminName: "Owner",
    }),
  });
  expect(boot.status).toBe(201);
  const forgot = await fetch(`${worker.base}/auth/forgot-password`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@mail.test" }),
  });
  expect(await forgot.json()).toEqual({ ok: true });
  // the reset is sent after the response: wait until the server saw a connection end
  const deadline = Date.now() + 20_000;
  while (!smtp.sessions.some((s) => s.closed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return smtp.sessions;
}

describe("SMTP transport security", () => {
  it("starttls: a server that does not offer STARTTLS is refused after EHLO, before AUTH or any mail", async () => {
    const sessions = await resetThroughPlatformSmtp("starttls");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.closed).toBe(true);
    expect(sessions[0]!.commands.map((c) => c.split(" ")[0])).toEqual(["EHLO"]);
    expect(sessions[0]!.commands.join("\n")).not.toMatch(/AUTH|MAIL FROM|token/);
  }, 120_000);

  it("plain: allowed to a loopback sink in a local environment (the mail arrives with its reset link)", async () => {
    const sessions = await resetThroughPlatformSmtp("plain");
    const commands = sessions.flatMap((s) => s.commands);
    expect(commands.map((c) => c.split(" ")[0])).toEqual(
      expect.arrayContaining(["EHLO", "AUTH", "MAIL", "RCPT", "DATA"]),
    );
    expect(commands.join("\n")).toContain("/reset-password?token=");
  }, 120_000);
});
