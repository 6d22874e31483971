import { describe, expect, it } from "vitest";
import { parseAcsEventGrid, verifyEventGridSecret } from "../../../src/providers/messaging/callbacks/acs";
import { handleProviderCallback } from "../../../src/providers/messaging/callbacks/handle";
import type { WebhookKeys } from "../../../src/providers/messaging/callbacks/keys";
import {
  metaVerificationChallenge,
  parseMetaWebhook,
  verifyMetaSignature,
} from "../../../src/providers/messaging/callbacks/meta";
import { parseSendGridEvents, verifySendGridSignature } from "../../../src/providers/messaging/callbacks/sendgrid";
import {
  isSnsUrl,
  parseSesNotification,
  type SnsMessage,
  verifySnsMessage,
} from "../../../src/providers/messaging/callbacks/sns";
import { isStopKeyword } from "../../../src/providers/messaging/callbacks/stop-keywords";
import { parseTwilioWebhook, verifyTwilioSignature } from "../../../src/providers/messaging/callbacks/twilio";
import { SNS_TEST_CERT_PEM, SNS_TEST_KEY_PKCS8_PEM } from "./fixtures/sns-test-keys";
import { b64, hex, hmac, standIn } from "./stand-in";

const enc = new TextEncoder();

/** raw r||s (what WebCrypto produces) as the DER SEQUENCE SendGrid sends */
function rawToDer(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b.subarray(i);
    return v[0]! & 0x80 ? [0x02, v.length + 1, 0, ...v] : [0x02, v.length, ...v];
  };
  const body = [...int(raw.subarray(0, 32)), ...int(raw.subarray(32))];
  return new Uint8Array([0x30, body.length, ...body]);
}

describe("sendgrid signed event webhook", () => {
  const events = JSON.stringify([
    {
      email: "ann@example.com",
      timestamp: 1772366400,
      event: "delivered",
      sg_message_id: "sgid1.filterdrecv-5645d9c87f-abc-1-1",
      solicitation_id: "sol1",
    },
    {
      email: "bob@example.com",
      timestamp: 1772366401,
      event: "bounce",
      type: "bounce",
      reason: "550 5.1.1 unknown user",
      sg_message_id: "sgid2.filterdrecv-1",
    },
    { email: "cy@example.com", timestamp: 1772366402, event: "spamreport", sg_message_id: "sgid3.filterdrecv-1" },
    {
      email: "di@example.com",
      timestamp: 1772366403,
      event: "dropped",
      reason: "Bounced Address",
      sg_message_id: "sgid4.filterdrecv-1",
    },
    { email: "ed@example.com", timestamp: 1772366404, event: "open", sg_message_id: "sgid5.filterdrecv-1" },
  ]);

  async function signed() {
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const publicKey = b64((await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer);
    const timestamp = "1772366405";
    const raw = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, enc.encode(timestamp + events)),
    );
    return { publicKey, timestamp, signature: btoa(String.fromCharCode(...rawToDer(raw))) };
  }

  it("accepts the ECDSA signature over timestamp + raw body and parses delivery outcomes", async () => {
    const s = await signed();
    expect(await verifySendGridSignature(s.publicKey, s.signature, s.timestamp, events)).toBe(true);
    expect(
      await verifySendGridSignature(
        `-----BEGIN PUBLIC KEY-----\n${s.publicKey}\n-----END PUBLIC KEY-----`,
        s.signature,
        s.timestamp,
        events,
      ),
    ).toBe(true);
    expect(parseSendGridEvents(events)).toEqual([
      {
        provider: "sendgrid",
        providerMessageId: "sgid1",
        status: "delivered",
        address: "ann@example.com",
        occurredAt: "2026-03-01T12:00:00.000Z",
        solicitationId: "sol1",
      },
      {
        provider: "sendgrid",
        providerMessageId: "sgid2",
        status: "bounced",
        address: "bob@example.com",
        reason: "550 5.1.1 unknown user",
        occurredAt: "2026-03-01T12:00:01.000Z",
      },
      {
        provider: "sendgrid",
        providerMessageId: "sgid3",
        status: "complained",
        address: "cy@example.com",
        occurredAt: "2026-03-01T12:00:02.000Z",
      },
      {
        provider: "sendgrid",
        providerMessageId: "sgid4",
        status: "failed",
        address: "di@example.com",
        reason: "Bounced Address",
        occurredAt: "2026-03-01T12:00:03.000Z",
      },
    ]);
  });

  it("refuses a changed body, another timestamp, another key and a missing signature", async () => {
    const s = await signed();
    expect(
      await verifySendGridSignature(s.publicKey, s.signature, s.timestamp, events.replace("delivered", "bounce")),
    ).toBe(false);
    expect(await verifySendGridSignature(s.publicKey, s.signature, "1772366406", events)).toBe(false);
    expect(await verifySendGridSignature((await signed()).publicKey, s.signature, s.timestamp, events)).toBe(false);
    expect(await verifySendGridSignature(s.publicKey, null, s.timestamp, events)).toBe(false);
    expect(await verifySendGridSignature(s.publicKey, "not-base64!!", s.timestamp, events)).toBe(false);
  });

  it("goes through the dispatcher: verified events, and 'not verified' for a bad signature", async () => {
    const s = await signed();
    const keys = { ...noKeys, sendgridPublicKeys: [s.publicKey] };
    const req = (sig: string) =>
      new Request("https://app.test/webhooks/providers/sendgrid", {
        method: "POST",
        body: events,
        headers: {
          "X-Twilio-Email-Event-Webhook-Signature": sig,
          "X-Twilio-Email-Event-Webhook-Timestamp": s.timestamp,
        },
      });
    const good = await handleProviderCallback("sendgrid", req(s.signature), keys);
    expect(good.verified && good.events.map((e) => e.status)).toEqual(["delivered", "bounced", "complained", "failed"]);
    expect(await handleProviderCallback("sendgrid", req((await signed()).signature), keys)).toEqual({
      verified: false,
    });
  });
});

const noKeys: WebhookKeys = {
  sendgridPublicKeys: [],
  twilioAuthTokens: [],
  metaAppSecrets: [],
  metaVerifyTokens: [],
  acsSecrets: [],
  snsTopicArns: [],
};

describe("twilio signature", () => {
  const url = "https://app.test/webhooks/providers/twilio?tenant=t1";
  const params = new URLSearchParams({
    MessageSid: "SM1",
    MessageStatus: "undelivered",
    ErrorCode: "30005",
    To: "+15557654321",
    From: "+15551234567",
    AccountSid: "AC1",
  });

  // Twilio's documented scheme: URL, then each parameter name and value, sorted by name
  const sign = async (token: string, u: string, p: URLSearchParams) =>
    b64(
      await hmac(
        "SHA-1",
        token,
        u +
          [...p.keys()]
            .sort()
            .map((k) => k + p.get(k))
            .join(""),
      ),
    );

  it("accepts HMAC-SHA1 of the full URL + sorted params, refuses another token, URL or params", async () => {
    const sig = await sign("tok", url, params);
    expect(await verifyTwilioSignature("tok", url, params, sig)).toBe(true);
    expect(await verifyTwilioSignature("other", url, params, sig)).toBe(false);
    expect(
      await verifyTwilioSignature("tok", "https://app.test/webhooks/providers/twilio?tenant=t2", params, sig),
    ).toBe(false);
    const changed = new URLSearchParams(params);
    changed.set("MessageStatus", "delivered");
    expect(await verifyTwilioSignature("tok", url, changed, sig)).toBe(false);
    expect(await verifyTwilioSignature("tok", url, params, null)).toBe(false);
  });

  it("parses status callbacks (undeliverable number -> bounced) and inbound SMS/WhatsApp", () => {
    const now = new Date("2026-03-01T12:00:00Z");
    expect(parseTwilioWebhook(params, now)).toEqual({
      events: [
        {
          provider: "twilio",
          providerMessageId: "SM1",
          status: "bounced",
          address: "+15557654321",
          reason: "Twilio error 30005",
          occurredAt: "2026-03-01T12:00:00.000Z",
        },
      ],
      inbound: [],
    });
    const delivered = parseTwilioWebhook(
      new URLSearchParams({ MessageSid: "SM2", MessageStatus: "delivered", To: "+15557654321" }),
      now,
    );
    expect(delivered.events[0]).toMatchObject({ status: "delivered", providerMessageId: "SM2" });
    expect(parseTwilioWebhook(new URLSearchParams({ MessageSid: "SM3", MessageStatus: "sent" }), now)).toEqual({
      events: [],
      inbound: [],
    });
    expect(
      parseTwilioWebhook(
        new URLSearchParams({
          MessageSid: "SM4",
          SmsStatus: "received",
          From: "+15557654321",
          To: "+15551234567",
          Body: "STOP",
        }),
      ).inbound,
    ).toEqual([
      {
        provider: "twilio",
        channel: "sms",
        from: "+15557654321",
        to: "+15551234567",
        body: "STOP",
        providerMessageId: "SM4",
      },
    ]);
    expect(
      parseTwilioWebhook(
        new URLSearchParams({
          MessageSid: "SM5",
          SmsStatus: "received",
          From: "whatsapp:+15557654321",
          To: "whatsapp:+15551234567",
          Body: "Opt out",
        }),
      ).inbound[0],
    ).toMatchObject({
      channel: "whatsapp",
      from: "+15557654321",
    });
  });

  it("goes through the dispatcher with the request URL as Twilio called it", async () => {
    const sig = await sign("tok", url, params);
    const req = (s: string) =>
      new Request(url, {
        method: "POST",
        body: params.toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", "X-Twilio-Signature": s },
      });
    const out = await handleProviderCallback("twilio", req(sig), { ...noKeys, twilioAuthTokens: ["wrong", "tok"] });
    expect(out.verified && out.events[0]!.status).toBe("bounced");
    expect(await handleProviderCallback("twilio", req(sig), { ...noKeys, twilioAuthTokens: ["wrong"] })).toEqual({
      verified: false,
    });
  });
});

describe("SES via SNS", () => {
  const topic = "arn:aws:sns:us-east-1:123456789012:ses-events";

  async function signedSns(
    fields: Omit<SnsMessage, "Signature" | "SignatureVersion" | "SigningCertURL">,
    version: "1" | "2",
    certUrl: string,
  ): Promise<SnsMessage> {
    const m = { ...fields, SignatureVersion: version, SigningCertURL: certUrl } as SnsMessage;
    const keys =
      m.Type === "Notification"
        ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
        : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
    const rec = m as unknown as Record<string, string | undefined>;
    const text = keys
      .filter((k) => rec[k] !== undefined)
      .map((k) => `${k}\n${rec[k]}\n`)
      .join("");
    const der = Uint8Array.from(atob(SNS_TEST_KEY_PKCS8_PEM.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "")), (c) =>
      c.charCodeAt(0),
    );
    const key = await crypto.subtle.importKey(
      "pkcs8",
      der,
      { name: "RSASSA-PKCS1-v1_5", hash: version === "1" ? "SHA-1" : "SHA-256" },
      false,
      ["sign"],
    );
    return { ...m, Signature: b64(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, enc.encode(text))) };
  }

  const sesBounce = JSON.stringify({
    notificationType: "Bounce",
    mail: { messageId: "0102-ses-1", timestamp: "2026-03-01T11:59:00.000Z", tags: { solicitation_id: ["sol9"] } },
    bounce: {
      bounceType: "Permanent",
      bounceSubType: "General",
      timestamp: "2026-03-01T12:00:00.000Z",
      bouncedRecipients: [{ emailAddress: "ann@example.com", diagnosticCode: "smtp; 550 5.1.1 user unknown" }],
    },
  });
  const notification = {
    Type: "Notification",
    MessageId: "m-1",
    TopicArn: topic,
    Message: sesBounce,
    Timestamp: "2026-03-01T12:00:01.000Z",
    UnsubscribeURL: "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe",
  };
  const certServer = () =>
    standIn((req) => (isSnsUrl(req.url) ? new Response(SNS_TEST_CERT_PEM) : new Response("no", { status: 404 })));

  it("verifies SignatureVersion 1 and 2 with the certificate from the SNS host, and parses the SES bounce", async () => {
    for (const v of ["1", "2"] as const) {
      const certs = certServer();
      const m = await signedSns(
        notification,
        v,
        `https://sns.us-east-1.amazonaws.com/SimpleNotificationService-v${v}.pem`,
      );
      expect(await verifySnsMessage(m, { allowedTopicArns: [topic], fetch: certs.fetch })).toBe(true);
      expect(certs.last().req.url).toBe(`https://sns.us-east-1.amazonaws.com/SimpleNotificationService-v${v}.pem`);
      expect(parseSesNotification(m)).toEqual([
        {
          provider: "ses",
          providerMessageId: "0102-ses-1",
          solicitationId: "sol9",
          status: "bounced",
          address: "ann@example.com",
          reason: "smtp; 550 5.1.1 user unknown",
          occurredAt: "2026-03-01T12:00:00.000Z",
        },
      ]);
    }
  });

  it("refuses a tampered message, an unknown topic, and a certificate from anywhere but an SNS https host", async () => {
    const certs = certServer();
    const m = await signedSns(notification, "2", "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-t.pem");
    expect(
      await verifySnsMessage(
        { ...m, Message: m.Message.replace("Permanent", "Transient") },
        { allowedTopicArns: [topic], fetch: certs.fetch },
      ),
    ).toBe(false);
    expect(
      await verifySnsMessage(m, {
        allowedTopicArns: ["arn:aws:sns:us-east-1:999999999999:attacker"],
        fetch: certs.fetch,
      }),
    ).toBe(false);
    for (const url of [
      "http://sns.us-east-1.amazonaws.com/SimpleNotificationService-t.pem",
      "https://sns.us-east-1.amazonaws.com.evil.test/SimpleNotificationService-t.pem",
      "https://evil.test/sns.us-east-1.amazonaws.com/x.pem",
      "https://sns.us-east-1.amazonaws.com:8443/SimpleNotificationService-t.pem",
    ]) {
      const served = standIn(() => new Response(SNS_TEST_CERT_PEM));
      const forged = await signedSns(notification, "2", url);
      expect(await verifySnsMessage(forged, { allowedTopicArns: [topic], fetch: served.fetch })).toBe(false);
      expect(served.calls).toHaveLength(0);
    }
  });

  it("confirms a verified SubscriptionConfirmation by visiting its SubscribeURL", async () => {
    const subscribe = "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=abc";
    const aws = standIn((req) =>
      req.url.endsWith(".pem") ? new Response(SNS_TEST_CERT_PEM) : new Response("<ConfirmSubscriptionResponse/>"),
    );
    const m = await signedSns(
      {
        Type: "SubscriptionConfirmation",
        MessageId: "m-2",
        TopicArn: topic,
        Message: "You have chosen to subscribe",
        Timestamp: "2026-03-01T12:00:00.000Z",
        Token: "abc",
        SubscribeURL: subscribe,
      },
      "1",
      "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-sub.pem",
    );
    const req = new Request("https://app.test/webhooks/providers/ses", { method: "POST", body: JSON.stringify(m) });
    expect(
      await handleProviderCallback("ses", req, { ...noKeys, snsTopicArns: [topic] }, { fetch: aws.fetch }),
    ).toEqual({ verified: true, events: [], inbound: [] });
    expect(aws.calls.map((c) => c.req.url)).toEqual([
      "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-sub.pem",
      subscribe,
    ]);
  });

  it("maps complaints, deliveries and transient bounces", () => {
    const wrap = (msg: object) => ({ ...notification, Message: JSON.stringify(msg) }) as SnsMessage;
    expect(
      parseSesNotification(
        wrap({
          eventType: "Complaint",
          mail: { messageId: "c1" },
          complaint: {
            timestamp: "2026-03-01T00:00:00Z",
            complaintFeedbackType: "abuse",
            complainedRecipients: [{ emailAddress: "a@x.test" }],
          },
        }),
      ),
    ).toEqual([
      {
        provider: "ses",
        providerMessageId: "c1",
        status: "complained",
        address: "a@x.test",
        reason: "abuse",
        occurredAt: "2026-03-01T00:00:00Z",
      },
    ]);
    expect(
      parseSesNotification(
        wrap({
          notificationType: "Delivery",
          mail: { messageId: "d1" },
          delivery: { timestamp: "2026-03-01T00:00:01Z", recipients: ["b@x.test"] },
        }),
      )[0],
    ).toMatchObject({ status: "delivered", address: "b@x.test" });
    expect(
      parseSesNotification(
        wrap({
          notificationType: "Bounce",
          mail: { messageId: "b1" },
          bounce: { bounceType: "Transient", bouncedRecipients: [{ emailAddress: "c@x.test" }] },
        }),
      )[0],
    ).toMatchObject({ status: "failed" });
  });
});

describe("meta whatsapp webhook", () => {
  const body = JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: "WABA1",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15551234567", phone_number_id: "106540352242922" },
              statuses: [
                { id: "wamid.1", status: "delivered", timestamp: "1772366400", recipient_id: "15557654321" },
                {
                  id: "wamid.2",
                  status: "failed",
                  timestamp: "1772366401",
                  recipient_id: "15557654322",
                  errors: [{ code: 131026, title: "Message undeliverable" }],
                },
                { id: "wamid.3", status: "sent", timestamp: "1772366402", recipient_id: "15557654323" },
              ],
              messages: [
                { from: "15557654321", id: "wamid.in1", timestamp: "1772366403", type: "text", text: { body: "STOP" } },
              ],
            },
          },
        ],
      },
    ],
  });

  it("accepts X-Hub-Signature-256 of the raw body under the app secret, refuses another secret or body", async () => {
    const header = `sha256=${hex(await hmac("SHA-256", "app-secret", body))}`;
    expect(await verifyMetaSignature("app-secret", body, header)).toBe(true);
    expect(await verifyMetaSignature("other-secret", body, header)).toBe(false);
    expect(await verifyMetaSignature("app-secret", body.replace("STOP", "stop"), header)).toBe(false);
    expect(await verifyMetaSignature("app-secret", body, undefined)).toBe(false);
    expect(parseMetaWebhook(JSON.parse(body))).toEqual({
      events: [
        {
          provider: "meta",
          providerMessageId: "wamid.1",
          status: "delivered",
          address: "+15557654321",
          occurredAt: "2026-03-01T12:00:00.000Z",
        },
        {
          provider: "meta",
          providerMessageId: "wamid.2",
          status: "bounced",
          address: "+15557654322",
          reason: "131026 Message undeliverable",
          occurredAt: "2026-03-01T12:00:01.000Z",
        },
      ],
      inbound: [
        {
          provider: "meta",
          channel: "whatsapp",
          from: "+15557654321",
          body: "STOP",
          to: "106540352242922",
          providerMessageId: "wamid.in1",
        },
      ],
    });
  });

  it("answers the GET verification with hub.challenge only for the right verify token", async () => {
    const q = (token: string) =>
      new URLSearchParams({ "hub.mode": "subscribe", "hub.verify_token": token, "hub.challenge": "1158201444" });
    expect(metaVerificationChallenge(q("vt"), "vt")).toBe("1158201444");
    expect(metaVerificationChallenge(q("nope"), "vt")).toBeNull();
    const get = await handleProviderCallback(
      "meta",
      new Request(`https://app.test/webhooks/providers/meta?${q("vt")}`),
      { ...noKeys, metaVerifyTokens: ["vt"] },
    );
    expect(get).toEqual({
      verified: true,
      events: [],
      inbound: [],
      reply: { status: 200, body: "1158201444", contentType: "text/plain" },
    });
    expect(
      await handleProviderCallback("meta", new Request(`https://app.test/webhooks/providers/meta?${q("x")}`), {
        ...noKeys,
        metaVerifyTokens: ["vt"],
      }),
    ).toEqual({ verified: false });
  });
});

describe("ACS via Event Grid", () => {
  it("answers the subscription validation handshake and parses delivery reports", () => {
    expect(
      parseAcsEventGrid([
        {
          id: "1",
          eventType: "Microsoft.EventGrid.SubscriptionValidationEvent",
          data: { validationCode: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6" },
        },
      ]),
    ).toEqual({
      kind: "validation",
      validationResponse: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6",
    });
    const report = (status: string, messageId: string) => ({
      id: messageId,
      eventType: "Microsoft.Communication.EmailDeliveryReportReceived",
      eventTime: "2026-03-01T12:00:00Z",
      data: {
        sender: "hello@acme.test",
        recipient: "ann@example.com",
        messageId,
        status,
        deliveryStatusDetails: { statusMessage: `${status} details` },
        deliveryAttemptTimeStamp: "2026-03-01T11:59:59Z",
      },
    });
    expect(
      parseAcsEventGrid([report("Delivered", "op-1"), report("Bounced", "op-2"), report("Expanded", "op-3")]),
    ).toEqual({
      kind: "events",
      events: [
        {
          provider: "acs",
          providerMessageId: "op-1",
          status: "delivered",
          address: "ann@example.com",
          reason: "Delivered details",
          occurredAt: "2026-03-01T11:59:59Z",
        },
        {
          provider: "acs",
          providerMessageId: "op-2",
          status: "bounced",
          address: "ann@example.com",
          reason: "Bounced details",
          occurredAt: "2026-03-01T11:59:59Z",
        },
      ],
    });
  });

  it("needs the subscription's secret (header or ?secret=) before anything, handshake included", async () => {
    const url = new URL("https://app.test/webhooks/providers/acs?tenant=t1&secret=s3cret");
    expect(verifyEventGridSecret("s3cret", null, url)).toBe(true);
    expect(verifyEventGridSecret("s3cret", "s3cret", new URL("https://app.test/x"))).toBe(true);
    expect(verifyEventGridSecret("s3cret", null, new URL("https://app.test/x?secret=guess"))).toBe(false);
    const handshake = JSON.stringify([
      { id: "1", eventType: "Microsoft.EventGrid.SubscriptionValidationEvent", data: { validationCode: "abc" } },
    ]);
    const ok = await handleProviderCallback("acs", new Request(url, { method: "POST", body: handshake }), {
      ...noKeys,
      acsSecrets: ["s3cret"],
    });
    expect(ok).toEqual({
      verified: true,
      events: [],
      inbound: [],
      reply: { status: 200, body: JSON.stringify({ validationResponse: "abc" }), contentType: "application/json" },
    });
    const bad = await handleProviderCallback(
      "acs",
      new Request("https://app.test/webhooks/providers/acs", { method: "POST", body: handshake }),
      { ...noKeys, acsSecrets: ["s3cret"] },
    );
    expect(bad).toEqual({ verified: false });
  });
});

describe("isStopKeyword", () => {
  it("matches the opt-out words as the whole message, ignoring case, spaces and punctuation", () => {
    for (const t of [
      "STOP",
      "stop",
      " Stop! ",
      "UNSUBSCRIBE",
      "cancel",
      "End",
      "quit",
      "OPT OUT",
      "opt-out",
      "optout",
      "Revoke",
      "S T O P",
    ]) {
      expect(isStopKeyword(t), t).toBe(true);
    }
    for (const t of ["please stop texting me", "stopped", "START", "", "don't stop", "end of day"]) {
      expect(isStopKeyword(t), t).toBe(false);
    }
  });
});
