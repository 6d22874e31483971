import { z } from "@hono/zod-openapi";
import { isBuiltinToken, TOKEN_NAME } from "./tokens";

export const MAX_LOCATION_VARIABLES = 50;

const VariableKey = z
  .string()
  .regex(TOKEN_NAME, "A token name: a letter, then letters, digits or underscores (max 64)")
  .refine((k) => !isBuiltinToken(k), { message: "Shadows a built-in token" });

export const LocationVariablesSchema = z
  .object({
    locationId: z.string(),
    variables: z
      .record(z.string(), z.string())
      .openapi({ example: { parkingInfo: "Free parking behind the building" } }),
  })
  .openapi("LocationVariables");

export const PutLocationVariablesBody = z
  .object({
    variables: z
      .record(VariableKey, z.string().max(1000))
      .refine((v) => Object.keys(v).length <= MAX_LOCATION_VARIABLES, {
        message: `At most ${MAX_LOCATION_VARIABLES} variables`,
      })
      .openapi({
        description: "the full set: keys absent here are removed; each key becomes the template token {{key}}",
      }),
  })
  .openapi("PutLocationVariablesRequest");

export type PutLocationVariablesInput = z.infer<typeof PutLocationVariablesBody>;
