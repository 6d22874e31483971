// Our XML parser is @xmldom/xmldom 0.9 installed under the npm alias xmldom-0.9 (package.json; the SAML
// libraries share the 0.8 at @xmldom/xmldom, docs/performance.md). Its types declare the module by its
// published name, '@xmldom/xmldom' (an ambient declaration, which tsconfig.json `paths` points at 0.9's
// file: 0.8's would also pull in the DOM lib), so they are given to the alias here.
declare module "xmldom-0.9" {
  export * from "@xmldom/xmldom";
}
