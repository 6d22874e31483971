import { describe, expect, it } from "vitest";
import { decodeCsvBytes, parseCsvTable, readCsvFile } from "../../src/lib/csv";

const utf8 = (s: string) => new TextEncoder().encode(s);
const withBom = (bytes: Uint8Array) => Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]);
function utf16le(s: string) {
  const out = new Uint8Array(2 + s.length * 2);
  out.set([0xff, 0xfe]);
  for (let i = 0; i < s.length; i++) {
    out[2 + i * 2] = s.charCodeAt(i) & 0xff;
    out[3 + i * 2] = s.charCodeAt(i) >> 8;
  }
  return out;
}
/** Windows-1252 for the Latin-1 range this test uses: one byte per character */
const cp1252 = (s: string) => Uint8Array.from([...s].map((c) => c.charCodeAt(0)));

const header = (h: string) => h.trim().toLowerCase();
const EXPECTED = [
  { email: "jose@example.test", name: "José Müller" },
  { email: "ana@example.test", name: "Ana, Jr." },
];

/** The same two contacts as each program that people export from writes them. */
const FILES: [string, Uint8Array][] = [
  [
    "Excel 'CSV UTF-8' (BOM, CRLF)",
    withBom(utf8('email,name\r\njose@example.test,José Müller\r\nana@example.test,"Ana, Jr."\r\n')),
  ],
  [
    "Google Sheets (UTF-8, LF, no BOM)",
    utf8('email,name\njose@example.test,José Müller\nana@example.test,"Ana, Jr."\n'),
  ],
  [
    "Excel 'CSV (Comma delimited)' on Windows (Windows-1252)",
    cp1252('email,name\r\njose@example.test,José Müller\r\nana@example.test,"Ana, Jr."\r\n'),
  ],
  [
    "Excel 'Unicode Text' (UTF-16LE, BOM, tabs)",
    utf16le("email\tname\r\njose@example.test\tJosé Müller\r\nana@example.test\tAna, Jr.\r\n"),
  ],
  [
    "a European Excel (semicolons)",
    withBom(utf8("email;name\r\njose@example.test;José Müller\r\nana@example.test;Ana, Jr.\r\n")),
  ],
  [
    "an old Mac export (CR line endings)",
    utf8('email,name\rjose@example.test,José Müller\rana@example.test,"Ana, Jr."\r'),
  ],
];

describe("CSV as people upload it (src/lib/csv.ts, every import reads through it)", () => {
  it.each(FILES)("%s", async (_what, bytes) => {
    const text = await readCsvFile(new Blob([bytes]));
    const table = parseCsvTable(text, { transformHeader: header });
    expect(table.fields).toEqual(["email", "name"]);
    expect(table.rows).toEqual(EXPECTED);
    expect(table.broken.size).toBe(0);
  });

  it("keeps a quoted cell's line break, and reports an unclosed quote by row", () => {
    const table = parseCsvTable('email,note\na@x.test,"two\nlines"\nb@x.test,"never closed\n', {
      transformHeader: header,
    });
    expect(table.rows[0]).toEqual({ email: "a@x.test", note: "two\nlines" });
    expect([...table.broken.keys()]).toEqual([1]);
    expect(table.rows[1]?.email).toBe("b@x.test");
  });

  it("reads one row past the limit and says the file is over it", () => {
    const text = `email\n${Array.from({ length: 12 }, (_, i) => `c${i}@x.test`).join("\n")}`;
    expect(parseCsvTable(text, { transformHeader: header, maxRows: 12 }).overLimit).toBe(false);
    const over = parseCsvTable(text, { transformHeader: header, maxRows: 10 });
    expect(over.overLimit).toBe(true);
    expect(over.rows.length).toBe(10);
  });

  it("decodes valid UTF-8 as UTF-8 even without a BOM (no Windows-1252 guess)", () => {
    expect(decodeCsvBytes(utf8("ü"))).toBe("ü");
    expect(decodeCsvBytes(cp1252("ü"))).toBe("ü");
  });
});
