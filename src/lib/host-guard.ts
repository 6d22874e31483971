/**
 * What a public route hands the request's host guard (src/middleware/public-host.ts): the tenant that
 * owns the resource it is about to serve. It resolves when the request's host serves that tenant and
 * throws a 404 otherwise, so services take it as `admit` and never compare hosts themselves.
 */
export type HostGuard = (tenantId: string) => Promise<void>;
