// setupFiles of the node project (vitest.config.mts): every fetch a node test makes asks for its own connection
// (`connection: close`) instead of reusing a kept-alive one. workerd's HTTP server (kj) waits 5 s for the next
// request on a connection, counted from when it finished reading the last one: a request that took 5 s or more
// to answer (a loaded machine, a Worker shared by several files, test/setup/served-worker.ts) has its
// connection closed as its response ends, while Node's fetch keeps the socket for 4 s after the response and
// sends the next request on it: "fetch failed: other side closed". Measured with a raw socket against
// bench/lib/server.mjs (docs/testing.md, "One served Worker"). A browser resends a request that failed on a
// reused connection; Node's fetch does not, so the tests' own requests take a fresh connection each.
const fetchReusingConnections = globalThis.fetch;

globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has("connection")) headers.set("connection", "close");
  return fetchReusingConnections(input, { ...init, headers });
};
