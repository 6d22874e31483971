// @xmldom/xmldom 0.9 under an npm alias (package.json): node-saml and xml-crypto need 0.8, and with ours
// named @xmldom/xmldom npm nested one 0.8 copy under each of them, both compiled at every isolate's
// start-up; this way they share the top-level one (docs/performance.md, "Issue #36, part 3")
import { DOMParser, type Document, type Element, onWarningStopParsing } from "xmldom-0.9";

export const NS = {
  metadata: "urn:oasis:names:tc:SAML:2.0:metadata",
  protocol: "urn:oasis:names:tc:SAML:2.0:protocol",
  assertion: "urn:oasis:names:tc:SAML:2.0:assertion",
  dsig: "http://www.w3.org/2000/09/xmldsig#",
} as const;

/**
 * Parses untrusted XML strictly: no DOCTYPE (so no entity expansion of any kind), and any parser
 * warning or error makes it null.
 */
export function parseXml(xml: string): Document | null {
  if (/<!DOCTYPE/i.test(xml)) return null;
  try {
    return new DOMParser({ onError: onWarningStopParsing }).parseFromString(xml, "text/xml");
  } catch {
    return null;
  }
}

export const children = (parent: Element, ns: string, localName: string): Element[] =>
  Array.from(parent.childNodes).filter(
    (n): n is Element =>
      n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === localName,
  );

export const child = (parent: Element, ns: string, localName: string): Element | undefined =>
  children(parent, ns, localName)[0];

export const descendants = (root: Document | Element, ns: string, localName: string): Element[] =>
  Array.from(root.getElementsByTagNameNS(ns, localName));

export const text = (el: Element | undefined): string | null => (el?.textContent ?? "").trim() || null;
