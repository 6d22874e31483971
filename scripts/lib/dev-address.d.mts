export function servedAddress(
  argv: string[],
  env: Record<string, string | undefined>,
  devVars: string,
): { port: string; extra: string[] };
