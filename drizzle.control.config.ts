import { defineConfig } from "drizzle-kit";

// migrations/control/ (docs/scaling.md, "Two migration folders"); `npm run db:generate` runs both configs.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema-sets/control.ts",
  out: "./migrations/control",
});
