import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CloudflareEmailProvider, type SendEmailBinding } from "../../../src/providers/messaging/cloudflare-email";
import type { OutgoingMessage } from "../../../src/providers/messaging/types";
import { createWorld, type World } from "../../helpers/seed";
import { newContact, newLocation, pendingRow, runSends, solicitationRow } from "../../solicitations/helpers";
import { rejection } from "./stand-in";

const message: OutgoingMessage = {
  tenantId: "tenant1",
  channel: "email",
  to: "ann@example.com",
  subject: "How did we do?",
  text: "Tell us: https://x.test/r/1",
  html: "<p>Tell us</p>",
  headers: {
    "List-Unsubscribe": "<https://app.example.com/unsubscribe/tok123>",
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  },
  solicitationId: "sol1",
};
const sender = { fromAddress: "hello@acme.test", fromName: "Acme Dental", replyToAddress: "desk@acme.test" };

/** A stand-in for the binding: records what send() was given and answers with `answer`. */
function binding(answer: () => Promise<EmailSendResult>) {
  const calls: Parameters<SendEmail["send"]>[0][] = [];
  const b: SendEmailBinding = {
    send: async (m: Parameters<SendEmail["send"]>[0]) => {
      calls.push(m);
      return answer();
    },
  } as SendEmailBinding;
  return { b, calls };
}

/** How the binding fails: an Error with a string `code` (workers-api, "Error codes"). */
const failure = (code: string | undefined, text: string) => Object.assign(new Error(text), code ? { code } : {});

describe("cloudflare (send_email binding)", () => {
  it("calls the structured send() with the sender, reply-to, both bodies and the allowed headers plus our ids; the messageId is the receipt", async () => {
    const api = binding(async () => ({ messageId: "<cf-1@example.com>" }));
    const receipt = await new CloudflareEmailProvider({ binding: api.b, sender }).send(message);
    expect(receipt).toEqual({ provider: "cloudflare", providerMessageId: "<cf-1@example.com>" });
    expect(api.calls).toEqual([
      {
        from: { email: "hello@acme.test", name: "Acme Dental" },
        to: "ann@example.com",
        subject: "How did we do?",
        replyTo: "desk@acme.test",
        text: "Tell us: https://x.test/r/1",
        html: "<p>Tell us</p>",
        headers: {
          "List-Unsubscribe": "<https://app.example.com/unsubscribe/tok123>",
          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
          "X-Solicitation-Id": "sol1",
          "X-Tenant-Id": "tenant1",
        },
      },
    ]);
  });

  it("leaves out List-Unsubscribe(-Post) with a plain-http link, which the service refuses (the link stays in the body)", async () => {
    const api = binding(async () => ({ messageId: "m" }));
    await new CloudflareEmailProvider({ binding: api.b, sender: { fromAddress: "a@b.test" } }).send({
      ...message,
      headers: {
        "List-Unsubscribe": "<http://localhost:8787/unsubscribe/t>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      },
    });
    expect(api.calls[0]).toMatchObject({
      from: "a@b.test",
      headers: { "X-Solicitation-Id": "sol1", "X-Tenant-Id": "tenant1" },
    });
    expect(Object.keys(api.calls[0]!.headers!)).toEqual(["X-Solicitation-Id", "X-Tenant-Id"]);
  });

  it("maps the binding's error codes: rate limit, daily quota, service error and uncoded errors retryable; the message's faults not", async () => {
    const cases: [string | undefined, boolean][] = [
      ["E_RATE_LIMIT_EXCEEDED", true],
      ["E_DAILY_LIMIT_EXCEEDED", true],
      ["E_INTERNAL_SERVER_ERROR", true],
      [undefined, true],
      ["E_SENDER_NOT_VERIFIED", false],
      ["E_RECIPIENT_SUPPRESSED", false],
      ["E_SENDER_DOMAIN_NOT_AVAILABLE", false],
      ["E_HEADER_NOT_ALLOWED", false],
      ["E_VALIDATION_ERROR", false],
      ["E_CONTENT_TOO_LARGE", false],
      ["E_DELIVERY_FAILED", false],
    ];
    for (const [code, retryable] of cases) {
      const api = binding(() => Promise.reject(failure(code, "refused")));
      const e = await rejection(new CloudflareEmailProvider({ binding: api.b, sender }).send(message));
      expect([code, e.retryable]).toEqual([code, retryable]);
      expect(e.message).toBe(`cloudflare: ${code ? `${code}: ` : ""}refused`);
    }
  });

  it("refuses, not retryable, without a binding or an email that cannot be sent; nothing is called", async () => {
    expect((await rejection(new CloudflareEmailProvider({ binding: null, sender }).send(message))).retryable).toBe(
      false,
    );
    const api = binding(async () => ({ messageId: "m" }));
    expect(
      (await rejection(new CloudflareEmailProvider({ binding: api.b, sender }).send({ ...message, subject: null })))
        .retryable,
    ).toBe(false);
    expect(api.calls).toEqual([]);
  });

  it("sends through the local binding (Miniflare's send_email) and answers its messageId", async () => {
    expect(env.EMAIL).toBeDefined();
    const receipt = await new CloudflareEmailProvider({ binding: env.EMAIL, sender }).send(message);
    expect(receipt.provider).toBe("cloudflare");
    expect(receipt.providerMessageId).toMatch(/@/);
  });
});

describe("a tenant on Cloudflare Email Sending", () => {
  let w: World;
  beforeAll(async () => {
    w = await createWorld();
  });

  it("selects it with PUT /v1/settings/email (no credentials) and its solicitations go out through the binding", async () => {
    const put = await w
      .as("tenantAdmin")
      .put("/v1/settings/email", { provider: "cloudflare", fromAddress: "hello@acme.test", fromName: "Acme" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ provider: "cloudflare", fromAddress: "hello@acme.test", credentialsSet: [] });
    const loc = await newLocation(w);
    const c = await newContact(w);
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    await runSends([id]);
    const row = await solicitationRow(id);
    expect(row).toMatchObject({ status: "SENT", provider: "cloudflare", failureReason: null, deliveryOutcome: null });
    expect(row!.providerMessageId).toMatch(/@/);
  });
});
