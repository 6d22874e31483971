/**
 * Wraps a D1 binding so that each round trip (a batch(), or a statement's first/all/run/raw, also
 * inside a `withSession` session) runs through `around`, which decides when it starts. The statements it hands out are unwrapped again
 * for batch(), which only takes the runtime's own statement objects.
 */
export function interceptD1(real: D1Database, around: <T>(call: () => Promise<T>) => Promise<T>): D1Database {
  const originals = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => wrap(value.apply(target, args));
        if (prop === "all" || prop === "first" || prop === "run" || prop === "raw") {
          return (...args: unknown[]) => around(() => value.apply(target, args));
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    originals.set(proxy, stmt);
    return proxy;
  };
  // a D1 Sessions API session (read replicas) runs its statements the same way: intercepted too
  const wrapQueries = <T extends D1Database | D1DatabaseSession>(db: T): T =>
    new Proxy(db, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql));
        if (prop === "batch")
          return (statements: D1PreparedStatement[]) =>
            around(() => target.batch(statements.map((s) => originals.get(s) ?? s)));
        if (prop === "withSession")
          return (constraint?: string) => wrapQueries((target as D1Database).withSession(constraint));
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return wrapQueries(real);
}
