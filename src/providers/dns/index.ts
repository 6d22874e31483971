import type { Env } from "../../env";
import type { FetchLike } from "../messaging/types";
import { DEFAULT_DOH_URL, lookupTxt, type TxtLookup } from "./doh";

export { DEFAULT_DOH_URL, lookupTxt, type TxtLookup } from "./doh";

let override: FetchLike | null = null;

/** Tests (and local tooling) point DNS lookups at a DNS-over-HTTPS stand-in; null restores the network. */
export const useDnsOverHttps = (f: FetchLike | null) => {
  override = f;
};

/** TXT lookups through the environment's resolver (DOH_URL, default Cloudflare's 1.1.1.1). */
export const dnsTxt =
  (env: Env) =>
  (name: string): Promise<TxtLookup> =>
    lookupTxt(name, {
      fetch: override ?? ((input, init) => fetch(input, init)),
      dohUrl: env.DOH_URL ?? DEFAULT_DOH_URL,
    });
