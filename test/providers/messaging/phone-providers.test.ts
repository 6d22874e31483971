import { describe, expect, it } from "vitest";
import { MetaWhatsAppProvider } from "../../../src/providers/messaging/meta-whatsapp";
import { TwilioProvider } from "../../../src/providers/messaging/twilio";
import type { OutgoingMessage } from "../../../src/providers/messaging/types";
import { jsonResponse, rejection, standIn } from "./stand-in";

const ACCOUNT = "AC0123456789abcdef0123456789abcdef";
const sms: OutgoingMessage = {
  tenantId: "t1",
  channel: "sms",
  to: "+15557654321",
  text: "Rate your visit: https://x.test/r/1 Reply STOP to opt out",
};

const form = (body: string) => Object.fromEntries(new URLSearchParams(body));

describe("twilio sms", () => {
  it("POSTs Messages.json form-encoded with Basic auth and the status callback; 201 gives the SM sid", async () => {
    const api = standIn(() => jsonResponse(201, { sid: "SM123", status: "queued" }));
    const p = new TwilioProvider({
      channel: "sms",
      accountSid: ACCOUNT,
      authToken: "tok",
      fromNumber: "+15551234567",
      statusCallbackUrl: "https://app.test/webhooks/providers/twilio?tenant=t1",
      fetch: api.fetch,
    });
    expect(await p.send(sms)).toEqual({ provider: "twilio", providerMessageId: "SM123" });
    const { req, body } = api.last();
    expect(req.method).toBe("POST");
    expect(req.url).toBe(`https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT}/Messages.json`);
    expect(req.headers.get("authorization")).toBe(`Basic ${btoa(`${ACCOUNT}:tok`)}`);
    expect(req.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(form(body)).toEqual({
      To: "+15557654321",
      From: "+15551234567",
      Body: sms.text,
      StatusCallback: "https://app.test/webhooks/providers/twilio?tenant=t1",
    });
  });

  it("uses a Messaging Service when no number is configured", async () => {
    const api = standIn(() => jsonResponse(201, { sid: "SM9" }));
    await new TwilioProvider({
      channel: "sms",
      accountSid: ACCOUNT,
      authToken: "tok",
      messagingServiceSid: "MG0123456789abcdef0123456789abcdef",
      fetch: api.fetch,
    }).send(sms);
    expect(form(api.last().body)).toMatchObject({ MessagingServiceSid: "MG0123456789abcdef0123456789abcdef" });
    expect(form(api.last().body).From).toBeUndefined();
  });

  it("maps 429 and 500 to retryable and 400 to not retryable with Twilio's code and message", async () => {
    for (const status of [429, 500]) {
      const api = standIn(() => jsonResponse(status, { code: 20429, message: "Too Many Requests", status }));
      expect(
        await rejection(
          new TwilioProvider({
            channel: "sms",
            accountSid: ACCOUNT,
            authToken: "t",
            fromNumber: "+15551234567",
            fetch: api.fetch,
          }).send(sms),
        ),
      ).toMatchObject({ retryable: true, status });
    }
    const bad = standIn(() =>
      jsonResponse(400, {
        code: 21211,
        message: "The 'To' number +1555 is not a valid phone number.",
        more_info: "https://www.twilio.com/docs/errors/21211",
        status: 400,
      }),
    );
    const e = await rejection(
      new TwilioProvider({
        channel: "sms",
        accountSid: ACCOUNT,
        authToken: "t",
        fromNumber: "+15551234567",
        fetch: bad.fetch,
      }).send(sms),
    );
    expect(e).toMatchObject({
      retryable: false,
      status: 400,
      message: "twilio: HTTP 400: 21211 The 'To' number +1555 is not a valid phone number.",
    });
  });
});

describe("twilio whatsapp", () => {
  const wa = (fetch: typeof globalThis.fetch | ReturnType<typeof standIn>["fetch"]) =>
    new TwilioProvider({
      channel: "whatsapp",
      accountSid: ACCOUNT,
      authToken: "tok",
      fromNumber: "+15551234567",
      fetch,
    });

  it("prefixes both numbers with whatsapp: and sends a Content template with numbered variables", async () => {
    const api = standIn(() => jsonResponse(201, { sid: "SMwa1" }));
    await wa(api.fetch).send({
      tenantId: "t1",
      channel: "whatsapp",
      to: "+15557654321",
      whatsappTemplate: {
        name: "HX0123456789abcdef0123456789abcdef",
        language: "en",
        params: ["Ann", "https://x.test/r/1"],
      },
    });
    expect(form(api.last().body)).toEqual({
      To: "whatsapp:+15557654321",
      From: "whatsapp:+15551234567",
      ContentSid: "HX0123456789abcdef0123456789abcdef",
      ContentVariables: JSON.stringify({ 1: "Ann", 2: "https://x.test/r/1" }),
    });
  });

  it("sends free text only inside the 24 hour window", async () => {
    const api = standIn(() => jsonResponse(201, { sid: "SMwa2" }));
    const outside = await rejection(
      wa(api.fetch).send({ tenantId: "t1", channel: "whatsapp", to: "+15557654321", text: "hi" }),
    );
    expect(outside.retryable).toBe(false);
    expect(api.calls).toHaveLength(0);
    await wa(api.fetch).send({
      tenantId: "t1",
      channel: "whatsapp",
      to: "+15557654321",
      text: "hi",
      withinServiceWindow: true,
    });
    expect(form(api.last().body)).toMatchObject({ To: "whatsapp:+15557654321", Body: "hi" });
  });
});

describe("meta whatsapp cloud api", () => {
  const provider = (fetch: ReturnType<typeof standIn>["fetch"]) =>
    new MetaWhatsAppProvider({ phoneNumberId: "106540352242922", accessToken: "EAAG-token", fetch });

  it("POSTs a template message to /{version}/{phone-number-id}/messages with a Bearer token", async () => {
    const api = standIn(() =>
      jsonResponse(200, {
        messaging_product: "whatsapp",
        contacts: [{ input: "15557654321", wa_id: "15557654321" }],
        messages: [{ id: "wamid.HBgL123" }],
      }),
    );
    const receipt = await provider(api.fetch).send({
      tenantId: "t1",
      channel: "whatsapp",
      to: "+15557654321",
      whatsappTemplate: { name: "review_request", language: "en_US", params: ["Ann", "Acme Dental"] },
    });
    expect(receipt).toEqual({ provider: "meta", providerMessageId: "wamid.HBgL123" });
    const { req, body } = api.last();
    expect(req.method).toBe("POST");
    expect(req.url).toBe("https://graph.facebook.com/v21.0/106540352242922/messages");
    expect(req.headers.get("authorization")).toBe("Bearer EAAG-token");
    expect(JSON.parse(body)).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "15557654321",
      type: "template",
      template: {
        name: "review_request",
        language: { code: "en_US" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "Ann" },
              { type: "text", text: "Acme Dental" },
            ],
          },
        ],
      },
    });
  });

  it("sends text only inside the 24 hour window", async () => {
    const api = standIn(() => jsonResponse(200, { messages: [{ id: "wamid.2" }] }));
    expect(
      (
        await rejection(
          provider(api.fetch).send({ tenantId: "t1", channel: "whatsapp", to: "+15557654321", text: "hello" }),
        )
      ).retryable,
    ).toBe(false);
    expect(api.calls).toHaveLength(0);
    await provider(api.fetch).send({
      tenantId: "t1",
      channel: "whatsapp",
      to: "+15557654321",
      text: "hello",
      withinServiceWindow: true,
    });
    expect(JSON.parse(api.last().body)).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "15557654321",
      type: "text",
      text: { preview_url: true, body: "hello" },
    });
  });

  it("maps 429/500 and Graph throttling codes to retryable, other 400s to not retryable with Graph's text", async () => {
    const tpl = {
      tenantId: "t1",
      channel: "whatsapp" as const,
      to: "+15557654321",
      whatsappTemplate: { name: "x", language: "en" },
    };
    for (const status of [429, 500]) {
      const api = standIn(() => jsonResponse(status, { error: { message: "busy", code: 1 } }));
      expect(await rejection(provider(api.fetch).send(tpl))).toMatchObject({ retryable: true, status });
    }
    const throttled = standIn(() =>
      jsonResponse(400, { error: { message: "(#130429) Rate limit hit", code: 130429 } }),
    );
    expect(await rejection(provider(throttled.fetch).send(tpl))).toMatchObject({ retryable: true, status: 400 });
    const bad = standIn(() =>
      jsonResponse(400, {
        error: {
          message: "(#132001) Template name does not exist in the translation",
          code: 132001,
          error_data: { details: "template name (x) does not exist in en" },
        },
      }),
    );
    const e = await rejection(provider(bad.fetch).send(tpl));
    expect(e).toMatchObject({
      retryable: false,
      message:
        "meta: HTTP 400: 132001 (#132001) Template name does not exist in the translation (template name (x) does not exist in en)",
    });
  });
});
