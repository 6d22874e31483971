// globalSetup of the node project (vitest.config.mts): one served Worker for the run (bench/lib/server.mjs, the
// bundle build-worker.ts built), which the page and HTTP test files share instead of each starting its own
// (a Miniflare, a workerd, the migrations and the app's first build: ~4 s of CPU a file on the 2-core CI
// machine, docs/testing.md). It is bootstrapped here, once; each file then makes a tenant and an admin of its
// own through the platform admin's API (test/node/helpers/api.ts `tenantApi`), so files share no rows they
// read. A file that needs bindings of its own (other vars, a service never bootstrapped) still starts its own.
import { BOOTSTRAP_SECRET_HEADER, startServer } from "../../bench/lib/server.mjs";

export default async function sharedServedWorker(): Promise<() => Promise<void>> {
  const server = await startServer();
  const res = await fetch(`${server.url}/bootstrap`, {
    method: "POST",
    headers: { "content-type": "application/json", ...BOOTSTRAP_SECRET_HEADER },
    body: JSON.stringify({
      tenantName: "Served platform",
      tenantSlug: "served-platform",
      adminEmail: "platform@served.test",
      adminPassword: "long enough password",
      adminName: "Platform admin",
    }),
  });
  if (res.status !== 201) {
    await server.mf.dispose();
    throw new Error(`bootstrapping the shared Worker: ${res.status} ${await res.text()}`);
  }
  const { token } = (await res.json()) as { token: string };
  // set before vitest starts the node project's workers, which inherit the environment
  Object.assign(process.env, {
    SERVED_WORKER_URL: server.url,
    SERVED_WORKER_SQL_URL: server.sqlUrl,
    SERVED_WORKER_ADMIN_TOKEN: token,
  });
  return async () => {
    delete process.env.SERVED_WORKER_URL;
    delete process.env.SERVED_WORKER_SQL_URL;
    delete process.env.SERVED_WORKER_ADMIN_TOKEN;
    await server.mf.dispose();
  };
}
