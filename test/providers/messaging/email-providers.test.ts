import { describe, expect, it } from "vitest";
import { Email } from "worker-mailer";
import { AcsEmailProvider } from "../../../src/providers/messaging/acs";
import { createProvider } from "../../../src/providers/messaging/factory";
import { SendGridProvider } from "../../../src/providers/messaging/sendgrid";
import { SesProvider } from "../../../src/providers/messaging/ses";
import { SmtpProvider, smtpFailure } from "../../../src/providers/messaging/smtp";
import type { OutgoingMessage } from "../../../src/providers/messaging/types";
import { b64, expectedSigV4, hmac, jsonResponse, rejection, standIn } from "./stand-in";

const UNSUB = {
  "List-Unsubscribe": "<https://app.example.com/unsubscribe/tok123>",
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};
const message: OutgoingMessage = {
  tenantId: "tenant1",
  channel: "email",
  to: "ann@example.com",
  subject: "How did we do?",
  text: "Tell us: https://x.test/r/1",
  html: "<p>Tell us</p>",
  headers: UNSUB,
  solicitationId: "sol1",
};
const sender = { fromAddress: "hello@acme.test", fromName: "Acme Dental", replyToAddress: "desk@acme.test" };

describe("sendgrid", () => {
  it("POSTs v3 mail/send with a Bearer key and the exact JSON body; 202 gives X-Message-Id", async () => {
    const api = standIn(() => new Response(null, { status: 202, headers: { "X-Message-Id": "sg-msg-1" } }));
    const receipt = await new SendGridProvider({ apiKey: "SG.key", sender, fetch: api.fetch }).send(message);
    expect(receipt).toEqual({ provider: "sendgrid", providerMessageId: "sg-msg-1" });
    const { req, body } = api.last();
    expect(req.method).toBe("POST");
    expect(req.url).toBe("https://api.sendgrid.com/v3/mail/send");
    expect(req.headers.get("authorization")).toBe("Bearer SG.key");
    expect(req.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(body)).toEqual({
      personalizations: [{ to: [{ email: "ann@example.com" }] }],
      from: { email: "hello@acme.test", name: "Acme Dental" },
      reply_to: { email: "desk@acme.test" },
      subject: "How did we do?",
      content: [
        { type: "text/plain", value: "Tell us: https://x.test/r/1" },
        { type: "text/html", value: "<p>Tell us</p>" },
      ],
      headers: UNSUB,
      custom_args: { tenant_id: "tenant1", solicitation_id: "sol1" },
    });
  });

  it("maps 429 and 500 to retryable, 400 to not retryable with SendGrid's error text, network failure to retryable", async () => {
    for (const status of [429, 500, 503]) {
      const api = standIn(() => jsonResponse(status, { errors: [{ message: "slow down" }] }));
      const e = await rejection(new SendGridProvider({ apiKey: "k", sender, fetch: api.fetch }).send(message));
      expect(e).toMatchObject({ retryable: true, status });
    }
    const bad = standIn(() =>
      jsonResponse(400, {
        errors: [{ message: "The from address does not match a verified Sender Identity.", field: "from" }],
      }),
    );
    const e = await rejection(new SendGridProvider({ apiKey: "k", sender, fetch: bad.fetch }).send(message));
    expect(e.retryable).toBe(false);
    expect(e.status).toBe(400);
    expect(e.message).toBe("sendgrid: HTTP 400: from: The from address does not match a verified Sender Identity.");
    const down = await rejection(
      new SendGridProvider({
        apiKey: "k",
        sender,
        fetch: async () => {
          throw new TypeError("connection reset");
        },
      }).send(message),
    );
    expect(down).toMatchObject({ retryable: true, message: "sendgrid: network error: connection reset" });
  });

  it("refuses an email without a subject before calling the API", async () => {
    const api = standIn(() => new Response(null, { status: 202 }));
    const e = await rejection(
      new SendGridProvider({ apiKey: "k", sender, fetch: api.fetch }).send({ ...message, subject: null }),
    );
    expect(e.retryable).toBe(false);
    expect(api.calls).toHaveLength(0);
  });
});

describe("ses", () => {
  const creds = {
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    region: "eu-west-1",
  };

  it("POSTs SESv2 SendEmail with a SigV4 signature that verifies independently", async () => {
    const api = standIn(() => jsonResponse(200, { MessageId: "0102018f-ses-id" }));
    const receipt = await new SesProvider({ ...creds, configurationSetName: "reviews", sender, fetch: api.fetch }).send(
      message,
    );
    expect(receipt).toEqual({ provider: "ses", providerMessageId: "0102018f-ses-id" });
    const { req, body } = api.last();
    expect(req.method).toBe("POST");
    expect(req.url).toBe("https://email.eu-west-1.amazonaws.com/v2/email/outbound-emails");
    const sig = await expectedSigV4(req, body, creds.secretAccessKey);
    expect(sig).toMatchObject({ region: "eu-west-1", service: "ses" });
    expect(sig.signedHeaders).toEqual(expect.arrayContaining(["host", "x-amz-date"]));
    expect(sig.given).toBe(sig.expected);
    expect(req.headers.get("authorization")).toContain("Credential=AKIDEXAMPLE/");
    expect(JSON.parse(body)).toEqual({
      FromEmailAddress: '"Acme Dental" <hello@acme.test>',
      Destination: { ToAddresses: ["ann@example.com"] },
      ReplyToAddresses: ["desk@acme.test"],
      Content: {
        Simple: {
          Subject: { Data: "How did we do?", Charset: "UTF-8" },
          Body: {
            Text: { Data: "Tell us: https://x.test/r/1", Charset: "UTF-8" },
            Html: { Data: "<p>Tell us</p>", Charset: "UTF-8" },
          },
          Headers: [
            { Name: "List-Unsubscribe", Value: "<https://app.example.com/unsubscribe/tok123>" },
            { Name: "List-Unsubscribe-Post", Value: "List-Unsubscribe=One-Click" },
          ],
        },
      },
      ConfigurationSetName: "reviews",
      EmailTags: [
        { Name: "tenant_id", Value: "tenant1" },
        { Name: "solicitation_id", Value: "sol1" },
      ],
    });
  });

  it("a tampered body no longer matches the signature (the check is real)", async () => {
    const api = standIn(() => jsonResponse(200, { MessageId: "x" }));
    await new SesProvider({ ...creds, sender, fetch: api.fetch }).send(message);
    const { req, body } = api.last();
    const sig = await expectedSigV4(req, body.replace("ann@", "bob@"), creds.secretAccessKey);
    expect(sig.given).not.toBe(sig.expected);
  });

  it("maps throttling and 5xx to retryable and a rejected message to not retryable with SES's text", async () => {
    const slow = standIn(() =>
      jsonResponse(
        429,
        { message: "Maximum sending rate exceeded." },
        { "x-amzn-ErrorType": "TooManyRequestsException" },
      ),
    );
    expect(await rejection(new SesProvider({ ...creds, sender, fetch: slow.fetch }).send(message))).toMatchObject({
      retryable: true,
      status: 429,
    });
    const down = standIn(() => jsonResponse(500, { message: "internal" }));
    expect(await rejection(new SesProvider({ ...creds, sender, fetch: down.fetch }).send(message))).toMatchObject({
      retryable: true,
      status: 500,
    });
    const bad = standIn(() =>
      jsonResponse(400, {
        message:
          "Email address is not verified. The following identities failed the check in region EU-WEST-1: hello@acme.test",
      }),
    );
    const e = await rejection(new SesProvider({ ...creds, sender, fetch: bad.fetch }).send(message));
    expect(e).toMatchObject({ retryable: false, status: 400 });
    expect(e.message).toContain("Email address is not verified");
  });
});

describe("acs", () => {
  const accessKey = b64(crypto.getRandomValues(new Uint8Array(32)).buffer as ArrayBuffer);
  const endpoint = "https://acme.unitedstates.communication.azure.com";
  const now = new Date("2026-03-01T12:00:00Z");

  it("POSTs emails:send with the HMAC-SHA256 access-key signature; 202 + Operation-Location gives the operation id", async () => {
    const api = standIn(() =>
      jsonResponse(
        202,
        { id: "op-123", status: "Running" },
        { "Operation-Location": `${endpoint}/emails/operations/op-123?api-version=2023-03-31` },
      ),
    );
    const receipt = await new AcsEmailProvider({ endpoint, accessKey, sender, fetch: api.fetch, now: () => now }).send(
      message,
    );
    expect(receipt).toEqual({ provider: "acs", providerMessageId: "op-123" });
    const { req, body } = api.last();
    expect(req.method).toBe("POST");
    expect(req.url).toBe(`${endpoint}/emails:send?api-version=2023-03-31`);
    const contentHash = b64(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
    expect(req.headers.get("x-ms-date")).toBe("Sun, 01 Mar 2026 12:00:00 GMT");
    expect(req.headers.get("x-ms-content-sha256")).toBe(contentHash);
    const keyBytes = Uint8Array.from(atob(accessKey), (c) => c.charCodeAt(0));
    const stringToSign = `POST\n/emails:send?api-version=2023-03-31\nSun, 01 Mar 2026 12:00:00 GMT;acme.unitedstates.communication.azure.com;${contentHash}`;
    const signature = b64(await hmac("SHA-256", keyBytes, stringToSign));
    expect(req.headers.get("authorization")).toBe(
      `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`,
    );
    expect(JSON.parse(body)).toEqual({
      senderAddress: "hello@acme.test",
      content: { subject: "How did we do?", plainText: "Tell us: https://x.test/r/1", html: "<p>Tell us</p>" },
      recipients: { to: [{ address: "ann@example.com" }] },
      replyTo: [{ address: "desk@acme.test" }],
      headers: UNSUB,
      userEngagementTrackingDisabled: true,
    });
  });

  it("takes the id from Operation-Location when the body has none; maps 429/500 retryable and 400 not", async () => {
    const api = standIn(
      () =>
        new Response(null, {
          status: 202,
          headers: { "Operation-Location": `${endpoint}/emails/operations/op-9?api-version=2023-03-31` },
        }),
    );
    expect(await new AcsEmailProvider({ endpoint, accessKey, sender, fetch: api.fetch }).send(message)).toEqual({
      provider: "acs",
      providerMessageId: "op-9",
    });
    for (const status of [429, 500]) {
      const f = standIn(() => jsonResponse(status, { error: { code: "TooManyRequests", message: "later" } }));
      expect(
        await rejection(new AcsEmailProvider({ endpoint, accessKey, sender, fetch: f.fetch }).send(message)),
      ).toMatchObject({ retryable: true, status });
    }
    const bad = standIn(() =>
      jsonResponse(400, { error: { code: "InvalidSenderUserName", message: "Invalid email sender username" } }),
    );
    const e = await rejection(new AcsEmailProvider({ endpoint, accessKey, sender, fetch: bad.fetch }).send(message));
    expect(e).toMatchObject({
      retryable: false,
      message: "acs: HTTP 400: InvalidSenderUserName: Invalid email sender username",
    });
  });
});

describe("smtp", () => {
  it("hands worker-mailer the connection and message; the MIME it writes carries List-Unsubscribe", async () => {
    const seen: { options: unknown; email: ConstructorParameters<typeof Email>[0] }[] = [];
    const provider = new SmtpProvider({
      host: "smtp.acme.test",
      port: 587,
      security: "starttls",
      username: "u",
      password: "p",
      sender,
      transport: async (options, email) => {
        seen.push({ options, email });
      },
    });
    const receipt = await provider.send(message);
    expect(receipt.provider).toBe("smtp");
    expect(receipt.providerMessageId).toMatch(/^<[a-z0-9]+@acme\.test>$/);
    expect(seen[0]!.options).toMatchObject({
      host: "smtp.acme.test",
      port: 587,
      secure: false,
      startTls: true,
      credentials: { username: "u", password: "p" },
    });
    const mime = new Email(seen[0]!.email).getEmailData();
    expect(mime).toContain("List-Unsubscribe: <https://app.example.com/unsubscribe/tok123>\r\n");
    expect(mime).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n");
    expect(mime).toContain(`Message-ID: ${receipt.providerMessageId}\r\n`);
    expect(mime).toContain('From: "Acme Dental" <hello@acme.test>');
    expect(mime).toContain("Reply-To: desk@acme.test");
  });

  it("maps SMTP replies: 5xx permanent, 4xx and connection failures transient", async () => {
    expect(smtpFailure(new Error("Invalid RCPT TO: <ann@example.com> 550 5.1.1 User unknown"))).toMatchObject({
      retryable: false,
      status: 550,
    });
    expect(smtpFailure(new Error("Failed to plain authentication: 535 5.7.8 Authentication failed"))).toMatchObject({
      retryable: false,
      status: 535,
    });
    expect(smtpFailure(new Error("Invalid MAIL FROM: <a@b.c> 451 4.7.1 Try again later"))).toMatchObject({
      retryable: true,
      status: 451,
    });
    expect(smtpFailure(new Error("Socket timeout!"))).toMatchObject({ retryable: true, status: undefined });
    const failing = new SmtpProvider({
      host: "h.test",
      port: 465,
      security: "tls",
      sender,
      transport: async () => {
        throw new Error("Failed send email body: 554 5.7.1 rejected as spam");
      },
    });
    expect(await rejection(failing.send(message))).toMatchObject({ retryable: false, status: 554 });
  });

  it("plaintext only to a loopback host in a local environment; any other security setting means mandatory STARTTLS", async () => {
    const opened: { host: string; secure?: boolean; startTls?: boolean }[] = [];
    const transport = async (o: { host: string; secure?: boolean; startTls?: boolean }) =>
      void opened.push({ host: o.host, secure: o.secure, startTls: o.startTls });
    const smtp = (host: string, security: string, localEnvironment: boolean) =>
      createProvider(
        {
          channel: "email",
          provider: "smtp",
          source: "platform",
          tenantId: null,
          config: { fromAddress: "a@b.test", fromName: "A" },
          options: { host, port: "2525", security },
          credentials: {},
        },
        { publicBaseUrl: "https://app.test", smtpTransport: transport, localEnvironment },
      );
    for (const [host, local] of [
      ["127.0.0.1", false],
      ["localhost", false],
      ["mail.example.test", true],
      ["10.0.0.5", true],
    ] as const) {
      expect(await rejection(smtp(host, "plain", local).send(message)), `${host} local=${local}`).toMatchObject({
        retryable: false,
        message: "smtp: plaintext SMTP is allowed only to a loopback host in a local environment; use tls or starttls",
      });
    }
    expect(opened).toEqual([]);
    await smtp("127.0.0.1", "plain", true).send(message);
    for (const typo of ["ssl", "none", "", "STARTTLS"]) await smtp("mail.example.test", typo, false).send(message);
    expect(opened).toEqual([
      { host: "127.0.0.1", secure: false, startTls: false },
      ...Array(4).fill({ host: "mail.example.test", secure: false, startTls: true }),
    ]);
  });
});
