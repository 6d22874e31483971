import type { Operation } from "./operation";

/**
 * Whether the operation has a REST door (a method and a path). A module of its own because
 * src/lib/catalogue.ts needs it and the Worker's global scope imports the catalogue: through
 * operation.ts it pulled @hono/zod-openapi, zod and hono into every isolate's start-up
 * (docs/performance.md, Start-up; test/node/bundle-contents.test.ts lists what start-up runs).
 */
export const hasRest = (
  op: Pick<Operation, "path">,
): op is Operation & Required<Pick<Operation, "path" | "method" | "operationId">> => op.path !== undefined;
