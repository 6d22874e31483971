import { describe, expect, it } from "vitest";
import { servedAddress } from "../../scripts/lib/dev-address.mjs";

// `npm run dev -- --port N` (or PORT=N): the links in mail and the OAuth issuer follow the served port unless
// the user set PUBLIC_BASE_URL (decisions.md, "Running it"). scripts/installed-smoke.mjs runs it for real in CI.
const DEV_VARS = "JWT_SECRET=x\nENCRYPTION_KEY=y\n";

describe("npm run dev: the port and the public base address", () => {
  it("8787 by default, PUBLIC_BASE_URL on it", () => {
    expect(servedAddress([], {}, DEV_VARS)).toEqual({
      port: "8787",
      extra: ["--port", "8787", "--var", "PUBLIC_BASE_URL:http://localhost:8787"],
    });
  });

  it("follows --port N, --port=N and PORT (the flag wins), passing the user's flag through untouched", () => {
    expect(servedAddress(["--port", "8793"], {}, DEV_VARS)).toEqual({
      port: "8793",
      extra: ["--var", "PUBLIC_BASE_URL:http://localhost:8793"],
    });
    expect(servedAddress(["--port=9000"], { PORT: "7000" }, DEV_VARS).extra).toEqual([
      "--var",
      "PUBLIC_BASE_URL:http://localhost:9000",
    ]);
    expect(servedAddress([], { PORT: "7000" }, DEV_VARS).extra).toEqual([
      "--port",
      "7000",
      "--var",
      "PUBLIC_BASE_URL:http://localhost:7000",
    ]);
  });

  it("https with --local-protocol https", () => {
    expect(servedAddress(["--port", "9443", "--local-protocol", "https"], {}, DEV_VARS).extra).toEqual([
      "--var",
      "PUBLIC_BASE_URL:https://localhost:9443",
    ]);
  });

  it("leaves a PUBLIC_BASE_URL the user set alone (.dev.vars or --var)", () => {
    expect(
      servedAddress(["--port", "9000"], {}, `${DEV_VARS}PUBLIC_BASE_URL=https://tunnel.example.com\n`).extra,
    ).toEqual([]);
    expect(servedAddress(["--port", "9000", "--var", "PUBLIC_BASE_URL:https://x.example"], {}, DEV_VARS).extra).toEqual(
      [],
    );
    expect(servedAddress(["--var=PUBLIC_BASE_URL:https://x.example"], {}, DEV_VARS).extra).toEqual(["--port", "8787"]);
  });
});
