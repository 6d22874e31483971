import { defineConfig } from "drizzle-kit";

// migrations/tenant/ (docs/scaling.md, "Two migration folders"); `npm run db:generate` runs both configs.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema-sets/tenant.ts",
  out: "./migrations/tenant",
});
