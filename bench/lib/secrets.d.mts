export const BENCH_SECRETS: { JWT_SECRET: string; ENCRYPTION_KEY: string; BOOTSTRAP_SECRET: string };
