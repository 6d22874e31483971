import { createId } from "@paralleldrive/cuid2";

/** Opaque, collision-resistant id (cuid2) for every resource. */
export const newId = (): string => createId();
