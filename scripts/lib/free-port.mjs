// A TCP port nobody listens on right now, from the kernel (listen on port 0): what every script and
// test that starts a server binds, so two runs (or a run and `npm run dev`) never collide.
import { createServer } from "node:net";

export const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
