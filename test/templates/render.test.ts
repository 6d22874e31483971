import { describe, expect, it } from "vitest";
import { renderTemplate, SMS_OPT_OUT_TEXT } from "../../src/modules/templates/render";
import { smsSegments } from "../../src/modules/templates/sms-segments";
import { extractTokens, unknownTokens } from "../../src/modules/templates/tokens";

const UNSUB = "https://x.test/unsubscribe/tok?a=1&b=2";

describe("token extraction", () => {
  it("finds distinct placeholders across fields in order, spaces inside braces allowed", () => {
    expect(
      extractTokens("Hi {{firstName}}", "<p>{{ locationName }} {{firstName}}</p>", null, "{{reviewLink}}"),
    ).toEqual(["firstName", "locationName", "reviewLink"]);
    expect(extractTokens("no tokens { here } {single}")).toEqual([]);
  });

  it("reports unknown and malformed tokens, knowing built-ins and custom keys", () => {
    const tokens = extractTokens("{{firstName}} {{parking}} {{nope}} {{first name}} {{}}");
    expect(unknownTokens(tokens, ["parking"])).toEqual(["nope", "first name", ""]);
  });
});

describe("renderTemplate", () => {
  const values = {
    firstName: `<script>alert("x")</script> & 'co'`,
    locationName: "Tom & Jerry's",
    unsubscribeLink: UNSUB,
  };

  it("escapes values in bodyHtml only, keeps the text body raw and the subject on one line", () => {
    const out = renderTemplate(
      {
        subject: "Hi {{firstName}}",
        bodyHtml: "<p>Hello {{firstName}} from {{locationName}}</p>{{unsubscribeLink}}",
        bodyText: "Hello {{firstName}}",
      },
      { ...values, firstName: "Ann\r\nBcc: evil@x.test <b>" },
      { channel: "email" },
    );
    expect(out.subject).toBe("Hi Ann Bcc: evil@x.test <b>");
    expect(out.html).toBe(
      "<p>Hello Ann\r\nBcc: evil@x.test &lt;b&gt; from Tom &amp; Jerry&#39;s</p>https://x.test/unsubscribe/tok?a=1&amp;b=2",
    );
    expect(out.text).toBe(`Hello Ann\r\nBcc: evil@x.test <b>\n\nUnsubscribe: ${UNSUB}`);
  });

  it("escapes script tags and quotes in html", () => {
    const out = renderTemplate({ subject: null, bodyHtml: "<div>{{firstName}}</div>", bodyText: null }, values, {
      channel: "email",
    });
    expect(out.html).toContain("<div>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</div>");
    expect(out.html).not.toContain("<script>");
  });

  it("appends the unsubscribe link to an email without {{unsubscribeLink}}, before </body> when present", () => {
    const out = renderTemplate(
      { subject: "S", bodyHtml: "<html><body><p>Hi</p></body></html>", bodyText: "Hi" },
      values,
      { channel: "email" },
    );
    expect(out.unsubscribeLinkAppended).toBe(true);
    expect(out.html).toBe(
      '<html><body><p>Hi</p><p style="font-size:12px;color:#666">If you no longer wish to receive these emails, ' +
        '<a href="https://x.test/unsubscribe/tok?a=1&amp;b=2">unsubscribe</a>.</p></body></html>',
    );
    expect(out.text).toBe(`Hi\n\nUnsubscribe: ${UNSUB}`);
    expect(out.sms).toBeNull();
  });

  it("does not append when the email carries {{unsubscribeLink}} in every part", () => {
    const out = renderTemplate(
      { subject: "S", bodyHtml: '<a href="{{unsubscribeLink}}">out</a>', bodyText: "Out: {{ unsubscribeLink }}" },
      values,
      { channel: "email" },
    );
    expect(out.unsubscribeLinkAppended).toBe(false);
    expect(out.text).toBe(`Out: ${UNSUB}`);
  });

  it("refuses to render an email without an unsubscribe link value", () => {
    expect(() => renderTemplate({ subject: "S", bodyHtml: null, bodyText: "x" }, {}, { channel: "email" })).toThrow(
      /unsubscribeLink/,
    );
  });

  it("renders a missing value as empty", () => {
    expect(
      renderTemplate({ subject: null, bodyHtml: null, bodyText: "[{{lastName}}]" }, {}, { channel: "whatsapp" }).text,
    ).toBe("[]");
  });

  it("adds the SMS opt-out text and reports segments; keeps a body that already says Reply STOP", () => {
    const out = renderTemplate(
      { subject: null, bodyHtml: null, bodyText: "Hi {{firstName}}, review us: {{reviewLink}}" },
      { firstName: "Ann", reviewLink: "https://r.test/x" },
      { channel: "sms" },
    );
    expect(out.text).toBe(`Hi Ann, review us: https://r.test/x\n${SMS_OPT_OUT_TEXT}`);
    expect(out.sms).toEqual({ encoding: "GSM-7", units: out.text!.length, segments: 1 });
    const own = renderTemplate(
      { subject: null, bodyHtml: null, bodyText: "Hi. reply stop to quit" },
      {},
      { channel: "sms" },
    );
    expect(own.text).toBe("Hi. reply stop to quit");
  });

  it("does not add SMS opt-out text to WhatsApp", () => {
    const out = renderTemplate({ subject: null, bodyHtml: null, bodyText: "Hi" }, {}, { channel: "whatsapp" });
    expect(out).toMatchObject({ text: "Hi", sms: null, unsubscribeLinkAppended: false });
  });
});

describe("SMS segments", () => {
  it("GSM-7: 160 in one, 153 per part beyond", () => {
    expect(smsSegments("a".repeat(160))).toEqual({ encoding: "GSM-7", units: 160, segments: 1 });
    expect(smsSegments("a".repeat(161))).toEqual({ encoding: "GSM-7", units: 161, segments: 2 });
    expect(smsSegments("a".repeat(306)).segments).toBe(2);
    expect(smsSegments("a".repeat(307)).segments).toBe(3);
  });

  it("GSM-7 extension characters count double and are not split across parts", () => {
    expect(smsSegments("€".repeat(80))).toEqual({ encoding: "GSM-7", units: 160, segments: 1 });
    expect(smsSegments("€".repeat(81))).toEqual({ encoding: "GSM-7", units: 162, segments: 2 });
    expect(smsSegments("{}[]~|^\\")).toMatchObject({ encoding: "GSM-7", units: 16 });
    // 152 septets, then an escaped pair that would straddle the 153 boundary: it moves whole to part 2
    expect(smsSegments(`${"a".repeat(152)}€${"a".repeat(151)}`)).toEqual({
      encoding: "GSM-7",
      units: 305,
      segments: 2,
    });
    // 306 septets would fit 2 x 153 if split anywhere; keeping the pair whole takes 3 parts
    expect(smsSegments(`${"a".repeat(152)}€${"a".repeat(152)}`)).toEqual({
      encoding: "GSM-7",
      units: 306,
      segments: 3,
    });
  });

  it("UCS-2: any non-GSM character switches the message; 70 in one, 67 per part", () => {
    expect(smsSegments("ü".repeat(200)).encoding).toBe("GSM-7");
    expect(smsSegments(`ł${"a".repeat(69)}`)).toEqual({ encoding: "UCS-2", units: 70, segments: 1 });
    expect(smsSegments(`ł${"a".repeat(70)}`)).toEqual({ encoding: "UCS-2", units: 71, segments: 2 });
    expect(smsSegments(`${"a".repeat(134)}ł`).segments).toBe(3);
    expect(smsSegments("😀".repeat(35))).toEqual({ encoding: "UCS-2", units: 70, segments: 1 });
  });

  it("never splits a surrogate pair", () => {
    // 66 units then an emoji (2 units): 68 > 67, the emoji starts part 2
    expect(smsSegments(`${"ł".repeat(66)}😀${"ł".repeat(65)}`).segments).toBe(2);
    expect(smsSegments(`${"ł".repeat(66)}😀${"ł".repeat(66)}`).segments).toBe(3);
  });
});
