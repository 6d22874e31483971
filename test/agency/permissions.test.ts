import { beforeAll } from "vitest";
import { only, permissionMatrix, type RouteCase } from "../helpers/permission-matrix";
import { createWorld, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

let n = 0;
const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${n++}`;
const A = (w: World) => w.tenantA.id;

const platformOnly = (ok: number) => only(ok, ["platformAdmin"]);
/** platform admin and the owner agency's admin succeed; the other agency's admin sees 404; tenant roles 403 */
const owner = (ok: number) => ({ ...only(ok, ["platformAdmin", "agencyAdmin"]), otherAgencyAdmin: 404 });
/** agency-wide routes: any agency admin succeeds (on its own tenants) */
const anyAgency = (ok: number) => only(ok, ["platformAdmin", "agencyAdmin", "otherAgencyAdmin"]);

const adminCases: RouteCase[] = [
  {
    method: "POST",
    path: () => "/admin/agencies",
    body: () => ({ name: "New agency", slug: uniq("ag") }),
    expect: platformOnly(201),
  },
  {
    method: "POST",
    path: (w) => `/admin/agencies/${w.agencyA.id}/admins`,
    body: () => ({ email: `${uniq("aa")}@example.test` }),
    expect: platformOnly(201),
  },
  { method: "GET", path: () => "/admin/agencies", expect: platformOnly(200) },
  { method: "GET", path: () => "/admin/tenants", expect: platformOnly(200) },
  { method: "GET", path: (w) => `/admin/tenants/${A(w)}`, expect: platformOnly(200) },
  {
    method: "PATCH",
    path: (w) => `/admin/tenants/${A(w)}`,
    body: () => ({ plan: "growth" }),
    expect: platformOnly(200),
  },
  { method: "GET", path: () => "/admin/audit-events", expect: platformOnly(200) },
  { method: "GET", path: (w) => `/admin/tenants/${A(w)}/moves`, expect: platformOnly(200) },
  { method: "GET", path: () => "/admin/outbox", expect: platformOnly(200) },
];

const agencyCases: RouteCase[] = [
  {
    method: "POST",
    path: () => "/agency/tenants",
    body: () => ({ name: "Client", slug: uniq("t") }),
    expect: anyAgency(201),
  },
  { method: "GET", path: () => "/agency/tenants", expect: anyAgency(200) },
  { method: "GET", path: (w) => `/agency/tenants/${A(w)}`, expect: owner(200) },
  { method: "PATCH", path: (w) => `/agency/tenants/${A(w)}`, body: () => ({ plan: "growth" }), expect: owner(200) },
  { method: "GET", path: (w) => `/agency/tenants/${A(w)}/users`, expect: owner(200) },
  {
    method: "POST",
    path: (w) => `/agency/tenants/${A(w)}/users`,
    body: () => ({ email: `${uniq("u")}@example.test`, role: "viewer" }),
    expect: owner(201),
  },
  {
    method: "POST",
    path: (w) => `/agency/tenants/${A(w)}/locations`,
    body: () => ({ name: "Agency-made" }),
    expect: owner(201),
  },
  { method: "GET", path: () => "/agency/locations", expect: anyAgency(200) },
  { method: "GET", path: (w) => `/agency/locations?tenantId=${A(w)}`, expect: owner(200) },
];

/** An agency admin reaches /v1 of owned tenants with full write access, and nothing of others. */
const tenantCases: RouteCase[] = [
  {
    method: "GET",
    path: () => "/v1/locations",
    tenantHeader: true,
    expect: { ...only(200, ["platformAdmin", "agencyAdmin", "tenantAdmin", "tenantUser"]) },
  },
  {
    method: "POST",
    path: () => "/v1/locations",
    tenantHeader: true,
    body: () => ({ name: "Via v1" }),
    expect: only(201, ["platformAdmin", "agencyAdmin", "tenantAdmin"]),
  },
  {
    method: "GET",
    path: () => "/v1/users",
    tenantHeader: true,
    expect: only(200, ["platformAdmin", "agencyAdmin", "tenantAdmin", "tenantUser"]),
  },
  {
    method: "POST",
    path: () => "/v1/users/invite",
    tenantHeader: true,
    body: () => ({ email: `${uniq("i")}@example.test`, role: "viewer" }),
    expect: only(201, ["platformAdmin", "agencyAdmin", "tenantAdmin"]),
  },
  {
    method: "GET",
    path: () => "/v1/audit-events",
    tenantHeader: true,
    expect: only(200, ["platformAdmin", "agencyAdmin", "tenantAdmin"]),
  },
  {
    method: "POST",
    path: () => "/v1/api-keys",
    tenantHeader: true,
    body: () => ({ name: "k" }),
    expect: only(201, ["platformAdmin", "agencyAdmin", "tenantAdmin"]),
  },
  {
    method: "POST",
    path: () => "/v1/regions",
    tenantHeader: true,
    body: () => ({ name: uniq("r") }),
    expect: only(201, ["platformAdmin", "agencyAdmin", "tenantAdmin"]),
  },
];

permissionMatrix("/admin/* is platform_admin only", () => w, adminCases);
permissionMatrix("/agency/* needs agency scope and ownership", () => w, agencyCases);
permissionMatrix("/v1/* of tenant A by each actor", () => w, tenantCases);
