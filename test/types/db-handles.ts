/**
 * Type-level proof of "Databases by construction" (docs/SECURITY.md): compiled by `npx tsc --noEmit`
 * (tsconfig includes test/), never run. Each `@ts-expect-error` below is a place where one kind of
 * database handle is handed where the other is asked for; tsc fails the build if any of them stops
 * being an error (an unused directive is itself an error). Every directive names why; the last
 * function shows the handles still meet where either is meant.
 */

import type { ShardSweep } from "../../src/background/shards";
import type { ControlDb, Db, ShardDb } from "../../src/db/client";
import { controlDb, shardDb } from "../../src/db/shards";
import type { Env } from "../../src/env";
import type { ServiceContext } from "../../src/lib/context";
import { findTenantRef } from "../../src/modules/identity/service";
import { tenantWhiteLabel } from "../../src/modules/white-label/resolve";
import { loadWidgetData } from "../../src/modules/widgets/data";

declare const env: Env;
declare const ctx: ServiceContext;
declare const plain: Db;

export function aShardIsNotTheControlPlane() {
  // @ts-expect-error a ShardDb is not a ControlDb
  const control: ControlDb = shardDb(env, 1);
  // @ts-expect-error control-plane reads refuse the tenant's shard
  void tenantWhiteLabel(ctx.db, ctx.tenantId);
  // @ts-expect-error the directory is a control table
  void findTenantRef(ctx.db, ctx.tenantId);
  // @ts-expect-error review.widgets' bug (its white label read on the shard): the shard passed as the control database
  void loadWidgetData(ctx.db, "key", ctx.db);
  return control;
}

export function theControlPlaneIsNotAShard() {
  // @ts-expect-error a ControlDb is not a ShardDb
  const shard: ShardDb = controlDb(env);
  // @ts-expect-error a tenant's context cannot carry the control database as its shard
  const context: ServiceContext = { ...ctx, db: ctx.control };
  // @ts-expect-error tenant rows refuse the control database
  void loadWidgetData(ctx.control, "key", ctx.control);
  // @ts-expect-error background work on a shard is handed a ShardDb, never the control database
  const sweep: ShardSweep = { name: "x", run: async (_env, db: ControlDb) => void db };
  return [shard, context, sweep];
}

export function onlySrcDbMintsThem() {
  // @ts-expect-error an unbranded drizzle handle is neither (only src/db/shards.ts and sessions.ts brand one)
  const shard: ShardDb = plain;
  // @ts-expect-error nor the control plane
  const control: ControlDb = plain;
  return [shard, control];
}

export function eitherWhereEitherIsMeant() {
  // helpers that run on whichever they are handed (commit, paging, audit statements) take a plain Db
  const both: Db[] = [ctx.db, ctx.control, shardDb(env, 0), controlDb(env)];
  void loadWidgetData(ctx.db, "key", ctx.control);
  return both;
}
