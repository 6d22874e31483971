export * from "./tenancy";
export * from "./identity";
export * from "./audit";
export * from "./jobs";
export * from "./events";
export * from "./outbox";
export * from "./credentials";
