// Client ID Metadata Document URLs against a real loopback listener, from the built Worker in workerd (the
// run's shared one, test/setup/served-worker.ts; global_fetch_strictly_public as deployed; a local workerd
// still reaches loopback under it): every place a client id can sit in a request, and not one TCP
// connection reaches the listener. The redirect and jwks_uri hops are covered in test/oauth/cimd.test.ts
// (they need a public host).
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

const worker = { base: sharedWorker().url };
let listener: Server;
let listenerPort = 0;
let connections = 0;

beforeAll(async () => {
  listenerPort = await freePort();
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(listenerPort, "127.0.0.1", resolve));
}, 180_000);
afterAll(() => {
  listener?.close();
});

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

describe("CIMD client ids pointing at loopback", () => {
  it("make no connection, whichever part of the request names them", async () => {
    const base = worker.base;
    const ids = [
      `https://127.0.0.1:${listenerPort}/client.json`,
      `https://localhost:${listenerPort}/client.json`,
      `https://[::ffff:127.0.0.1]:${listenerPort}/client.json`,
    ];
    const grant = {
      grant_type: "authorization_code",
      code: "x",
      redirect_uri: "https://client.example/cb",
      code_verifier: "v",
    };
    const token = (headers: Record<string, string>, body: Record<string, string>) =>
      fetch(`${base}/oauth/token`, {
        method: "POST",
        headers,
        body: new URLSearchParams(body).toString(),
        redirect: "manual",
      });
    const statuses: number[] = [];
    for (const id of ids) {
      const assertion = `${b64url({ alg: "RS256", typ: "JWT" })}.${b64url({ iss: id, sub: id, aud: `${base}/oauth/token`, jti: crypto.randomUUID(), exp: Math.floor(Date.now() / 1000) + 60 })}.c2ln`;
      for (const res of [
        await token({ "content-type": "application/x-www-form-urlencoded" }, { ...grant, client_id: id }),
        await token({ "content-type": "APPLICATION/X-WWW-FORM-URLENCODED" }, { ...grant, client_id: id }),
        await token(
          {
            "content-type": "application/x-www-form-urlencoded",
            authorization: `Basic ${btoa(`${encodeURIComponent(id)}:secret`)}`,
          },
          grant,
        ),
        await token(
          { "content-type": "application/x-www-form-urlencoded" },
          {
            ...grant,
            client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            client_assertion: assertion,
          },
        ),
        await fetch(
          `${base}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(id)}&redirect_uri=${encodeURIComponent("https://client.example/cb")}`,
          { redirect: "manual" },
        ),
        await fetch(`${base}/oauth/register/${encodeURIComponent(id)}`, { redirect: "manual" }),
      ]) {
        statuses.push(res.status);
        await res.body?.cancel();
      }
    }
    expect(statuses.every((s) => s >= 400)).toBe(true);
    expect(connections).toBe(0);
  }, 60_000);
});
