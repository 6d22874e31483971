// GSM 03.38 default alphabet (without ESC) and its extension table, whose characters take two septets.
const GSM7_BASIC = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
);
const GSM7_EXTENSION = new Set("^{}\\[~]|€\f");

export interface SmsSegmentInfo {
  encoding: "GSM-7" | "UCS-2";
  /** septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2 */
  units: number;
  segments: number;
}

/**
 * Segments an SMS body takes: GSM-7 fits 160 septets in one message, 153 per part when concatenated;
 * anything outside GSM-7 switches the whole message to UCS-2: 70 units, 67 per part. A character is
 * never split across parts (an escaped GSM-7 character or a UTF-16 surrogate pair moves whole).
 */
export function smsSegments(text: string): SmsSegmentInfo {
  const chars = [...text];
  const gsm = chars.every((ch) => GSM7_BASIC.has(ch) || GSM7_EXTENSION.has(ch));
  const sizes = chars.map((ch) => (gsm ? (GSM7_EXTENSION.has(ch) ? 2 : 1) : ch.length));
  const units = sizes.reduce((a, b) => a + b, 0);
  const [single, part] = gsm ? [160, 153] : [70, 67];
  if (units <= single) return { encoding: gsm ? "GSM-7" : "UCS-2", units, segments: units === 0 ? 0 : 1 };
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return { encoding: gsm ? "GSM-7" : "UCS-2", units, segments };
}
