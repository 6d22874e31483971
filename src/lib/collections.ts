/**
 * The items grouped by key, groups in the order their keys first appear, items in input order.
 * `Map.groupBy` (ES2024) does this, but Node 20 (package.json engines, the test/node project and
 * scripts import src/) lacks it and the TypeScript lib is ES2022; swap this for the platform's
 * once both move on.
 */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  return groupMap(items, keyOf, (item) => item);
}

/** The same, keeping `valueFor(item)` instead of the item (e.g. only the ids). */
export function groupMap<T, K, V>(items: Iterable<T>, keyOf: (item: T) => K, valueFor: (item: T) => V): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(valueFor(item));
    else groups.set(key, [valueFor(item)]);
  }
  return groups;
}
