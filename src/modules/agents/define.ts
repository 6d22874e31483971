import type { z } from "@hono/zod-openapi";
import type { AgentDefinition } from "./types";

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

/** Types an agent's definition; the catalogue is the list in agents/index.ts, not a side effect of this call. */
export const defineAgent = <I extends ObjectSchema, O extends ObjectSchema>(
  def: AgentDefinition<I, O>,
): AgentDefinition<I, O> => def;
