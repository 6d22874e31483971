// Where `npm run dev` serves (scripts/dev.mjs), and the public base address that goes with it
// (decisions.md, "Running it"): links in mail and the OAuth issuer follow the served port.

/**
 * The port wrangler serves on (`--port N`, `--port=N`, else PORT, else 8787) and the arguments to add:
 * `--port` when the user gave none, and PUBLIC_BASE_URL on that port unless the user set it
 * (in .dev.vars or with `--var PUBLIC_BASE_URL:...`).
 */
export function servedAddress(argv, env, devVars) {
  const value = (flag) => {
    const i = argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (i < 0) return undefined;
    return argv[i].includes("=") ? argv[i].slice(flag.length + 1) : argv[i + 1];
  };
  const givenPort = value("--port");
  const port = givenPort ?? env.PORT ?? "8787";
  const extra = givenPort ? [] : ["--port", port];
  const varArgs = argv.flatMap((a, i) =>
    a === "--var" ? [argv[i + 1] ?? ""] : a.startsWith("--var=") ? [a.slice(6)] : [],
  );
  const userSetBase =
    /^\s*PUBLIC_BASE_URL\s*=/m.test(devVars) ||
    varArgs.some((v) => v.split(/\s+/).some((kv) => kv.startsWith("PUBLIC_BASE_URL:")));
  const protocol = value("--local-protocol") === "https" ? "https" : "http";
  if (!userSetBase) extra.push("--var", `PUBLIC_BASE_URL:${protocol}://localhost:${port}`);
  return { port, extra };
}
