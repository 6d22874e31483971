import { hasRest } from "./has-rest";
import type { Operation } from "./operation";

/*
 * The catalogue as installed by the composition root (src/wiring.ts OPERATIONS, handed to createWorker):
 * the agents find their tools here (agents/tools.ts), so no module imports another's operations to
 * offer them. Reading it before createWorker installed it is a wiring bug and throws, like hooks().
 */

let installed: readonly Operation[] | null = null;
let byName = new Map<string, Operation>();

/** Installs the catalogue; names and operationIds must be unique (a second declaration is a bug, not an override). */
export function installCatalogue(operations: readonly Operation[]) {
  const names = new Map<string, Operation>();
  const ids = new Set<string>();
  for (const op of operations) {
    const known = names.get(op.name);
    if (known && known !== op) throw new Error(`operation ${op.name} declared twice`);
    names.set(op.name, op);
    if (hasRest(op) && known !== op) {
      if (ids.has(op.operationId)) throw new Error(`operationId ${op.operationId} declared twice`);
      ids.add(op.operationId);
    }
  }
  installed = [...new Set(operations)];
  byName = names;
}

export function catalogue(): readonly Operation[] {
  if (!installed) throw new Error("catalogue not installed: the composition root (src/wiring.ts) installs it");
  return installed;
}

/** The operation of this name (its tool name), if the catalogue has one. */
export const operationNamed = (name: string): Operation | undefined => {
  catalogue();
  return byName.get(name);
};
