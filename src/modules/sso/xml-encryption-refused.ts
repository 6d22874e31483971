// What the bundle gets for `xml-encryption` (wrangler.toml [alias]): @node-saml/node-saml imports it
// to decrypt encrypted assertions, which this service does not accept (docs/saml.md: no SP key pair,
// so node-saml refuses an EncryptedAssertion with "No decryption key" before it would call this).
// The real library and its own copies of xpath and xmldom are ~330 kB of JavaScript that every
// isolate would compile at start-up for code that never runs (docs/performance.md).
type Callback = (error: Error) => void;

const refuse = (callback: Callback) => callback(new Error("encrypted SAML assertions are not supported"));

export const decrypt = (_xml: unknown, _options: unknown, callback: Callback) => refuse(callback);
export const encrypt = (_content: unknown, _options: unknown, callback: Callback) => refuse(callback);
export const decryptKeyInfo = (_doc: unknown, _options: unknown) => {
  throw new Error("encrypted SAML assertions are not supported");
};
export const encryptKeyInfo = (_symmetricKey: unknown, _options: unknown, callback: Callback) => refuse(callback);
