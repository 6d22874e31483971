/** Makes every fetch of this process ask for a connection of its own (scripts/lib/fresh-connections.mjs). */
export function useFreshConnections(): void;
