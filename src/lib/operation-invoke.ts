import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { assertTenantWritable } from "../db/tenant-fence";
import { assertAgencyAdmin, assertPlatformAdmin, assertScopes, requireTenantRole } from "../middleware/tenant";
import { bodyOf, checkedInput, type Operation } from "./operation";
import { contextFor } from "./operation-route";

/*
 * The console's door of the catalogue (src/lib/operation.ts): a console page's handler calls an
 * operation with a form's input, and the operation is checked exactly as its REST route is, by the
 * same functions:
 *   - the kind's guard: a tenant operation needs the request's tenant access (c.var.access, set by
 *     tenantContext or the console's own equivalent), a platform one a platform admin
 *     (assertPlatformAdmin), an agency one an agency admin (assertAgencyAdmin), a user one a person;
 *   - a tenant operation: the role (requireTenantRole, requireRole's check), an API key's scopes against the
 *     operation's (assertScopes, tenantContext's check), and a write is refused while the tenant moves;
 *   - the input: the operation's JSON input schema (checkedInput: 400 VALIDATION_ERROR as over REST).
 * It answers the handler's body (a `reply`'s status and headers are REST's business).
 *
 *   const input = formFields(createLocationOperation, await c.req.formData());
 *   const location = await invoke(createLocationOperation, c, input);
 */

/** Runs the operation for the console: the REST checks, then the handler with the validated input. */
export async function invoke<I, A>(op: Operation<I, A>, c: Context<AppEnv>, raw: unknown): Promise<A> {
  if (!op.console) throw new Error(`${op.name} has no console door`);
  const p = c.var.principal;
  if (op.context === "platform") assertPlatformAdmin(p);
  if (op.context === "agency") assertAgencyAdmin(p);
  if (op.context === "tenant") {
    // in REST's order: tenantContext (scopes, the move fence on a write), requireRole, then the validators
    const access = c.var.access;
    if (!access) throw new Error(`${op.name} is a tenant operation: invoke it on a request with the tenant's access`);
    if (p.kind === "api_key") assertScopes(p.scopes, op.scopes);
    if (op.access === "write") await assertTenantWritable(c.env, access.tenantId);
    if (op.minRole) requireTenantRole(access, op.minRole);
  }
  const input = checkedInput(op as Operation, (raw ?? {}) as Record<string, unknown>) as I;
  return bodyOf(await op.handler(contextFor(op.context, c), input)) as A;
}
