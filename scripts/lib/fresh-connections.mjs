// Every fetch of this process asks for a connection of its own (`connection: close`) instead of reusing a
// kept-alive one: what a Node client of a locally served Worker needs (the node tests, the MCP conformance
// run). workerd's HTTP server waits 5 s for the next request on a connection, counted from when it finished
// reading the last one, so a request that took 5 s or more to answer (a loaded machine, a Worker several test
// files share) has its connection closed as its response ends; Node's fetch keeps the socket for 4 s after the
// response and sends the next request on it: "fetch failed: other side closed" (measured with a raw socket
// against bench/lib/server.mjs, docs/testing.md "One served Worker"). A browser resends a request that failed
// on a reused connection; Node's fetch does not.
export function useFreshConnections() {
  const fetchReusingConnections = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has("connection")) headers.set("connection", "close");
    return fetchReusingConnections(input, { ...init, headers });
  };
}
