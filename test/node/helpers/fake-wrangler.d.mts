export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}
export function fakeWrangler(call: {
  args: string[];
  stdin?: string;
  vars: { FAKE_WRANGLER_STATE: string; FAKE_WRANGLER_CONFIG?: string; FAKE_WRANGLER_PAGE_SIZE?: string };
}): ProcessResult;
export function startFakeWrangler(binDir: string): Promise<{ close(): Promise<void> }>;
export function runNode(args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<ProcessResult>;
