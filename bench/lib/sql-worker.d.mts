// Types for sql-worker.mjs: the part of D1's API that d1OverHttp carries.
export interface SqlStatement {
  readonly sql: string;
  readonly params: unknown[];
  bind(...values: (string | number | boolean | null)[]): SqlStatement;
  run<T = Record<string, unknown>>(): Promise<D1Result<T>>;
  all<T = Record<string, unknown>>(): Promise<D1Result<T>>;
  first<T = Record<string, unknown>>(column?: string): Promise<T | null>;
}
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  batch<T = Record<string, unknown>>(statements: SqlStatement[]): Promise<D1Result<T>[]>;
}
export const SQL_WORKER: string;
export function d1OverHttp(url: string): SqlDatabase;
