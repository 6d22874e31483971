import type { TenantRole } from "../../db/schema";

/*
 * The console's sections of a tenant, in one list (docs/console.md, "Navigation"): the navigation bar shows
 * the `main` ones, the Settings page (/app/t/{tenant}/settings) lists the `settings` ones. Each is linked for
 * the roles its REST twin answers (`minRole`); the page itself refuses the rest, so this list is what a
 * person is offered, never what they are allowed. A new page adds its line here.
 */

export interface SectionLink {
  key: string;
  label: string;
  /** the page's address under /app/t/{tenant} ("" is the tenant's home) */
  path: string;
  group: "main" | "settings";
  minRole: TenantRole;
  /** what the Settings page says about it */
  blurb?: string;
  /** the heading the Settings page lists it under (default "Account"), in the order the headings first appear */
  area?: string;
}

export const TENANT_SECTIONS = [
  { key: "home", label: "Home", path: "", group: "main", minRole: "viewer" },
  { key: "inbox", label: "Inbox", path: "/inbox", group: "main", minRole: "viewer" },
  { key: "approvals", label: "Approvals", path: "/approvals", group: "main", minRole: "viewer" },
  { key: "reviews", label: "Reviews", path: "/reviews", group: "main", minRole: "viewer" },
  // GET /v1/campaigns, /v1/templates, /v1/experiments, /v1/solicitations: every role reads them (writes: manager,
  // templates tenant_user); the section's own pages carry a sub-navigation (pages/requests.tsx)
  { key: "requests", label: "Requests", path: "/requests", group: "main", minRole: "viewer" },
  // GET /v1/contacts: every role reads them (writes: tenant_user; erasing: tenant_admin)
  { key: "contacts", label: "Contacts", path: "/contacts", group: "main", minRole: "viewer" },
  { key: "settings", label: "Settings", path: "/settings", group: "main", minRole: "viewer" },
  // GET /v1/locations, /v1/integrations, /v1/settings/{channel}, /v1/review-links, /v1/widgets,
  // /v1/alert-subscriptions: every role reads them (writes: manager, tenant_admin, or one's own alerts)
  {
    key: "locations",
    label: "Locations",
    path: "/locations",
    group: "settings",
    minRole: "viewer",
    area: "Locations",
    blurb: "Your places with their addresses and review-site ids (Google place id, Yelp, Facebook).",
  },
  {
    key: "integrations",
    label: "Review sites",
    path: "/integrations",
    group: "settings",
    minRole: "viewer",
    area: "Connections",
    blurb: "Connect Google, Yelp, Facebook and Trustpilot; see each connection's state and what needs you.",
  },
  {
    key: "messaging",
    label: "Email, SMS and WhatsApp",
    path: "/messaging",
    group: "settings",
    minRole: "viewer",
    area: "Connections",
    blurb: "The providers and senders your review requests go out with; check the domain, send a test.",
  },
  {
    key: "review-links",
    label: "Review links and QR codes",
    path: "/review-links",
    group: "settings",
    minRole: "viewer",
    area: "Review links & widgets",
    blurb: "Short links and printable QR codes that send customers to a review site, with their opens.",
  },
  {
    key: "widgets",
    label: "Widgets",
    path: "/widgets",
    group: "settings",
    minRole: "viewer",
    area: "Review links & widgets",
    blurb: "Show your reviews on your website: the embed code to copy and a preview.",
  },
  {
    key: "alerts",
    label: "Alerts",
    path: "/alerts",
    group: "settings",
    minRole: "viewer",
    area: "Alerts",
    blurb: "Emails about new reviews as they arrive, and daily or weekly digests.",
  },
  // GET /v1/compliance and /v1/compliance/refusals: every role reads them; PUT /v1/compliance is tenant_admin
  {
    key: "compliance",
    label: "Compliance",
    path: "/compliance",
    group: "settings",
    minRole: "viewer",
    area: "Compliance",
    blurb: "Quiet hours, how often a person may be asked, consent rules, data rights; what they refused lately.",
  },
  // GET /v1/users: every role reads the team
  {
    key: "team",
    label: "Team",
    path: "/team",
    group: "settings",
    minRole: "viewer",
    blurb: "People, their roles and pending invites.",
  },
  // GET /v1/api-keys and /v1/audit-events: tenant_admin (platform and agency scope act as one)
  {
    key: "api-keys",
    label: "API keys",
    path: "/api-keys",
    group: "settings",
    minRole: "tenant_admin",
    blurb: "Keys for your own software: mint with chosen scopes, see last use, revoke.",
  },
  {
    key: "audit",
    label: "Audit log",
    path: "/audit",
    group: "settings",
    minRole: "tenant_admin",
    blurb: "Who did what and when; export the filtered view as CSV.",
  },
  // GET /v1/settings/sso: tenant_admin
  {
    key: "sso",
    label: "Single sign-on",
    path: "/sso",
    group: "settings",
    minRole: "tenant_admin",
    blurb: "Sign in through your identity provider (SAML): our values to copy, your metadata in, on or off.",
  },
  // GET /v1/branding and /v1/hostnames: every role reads them; their writes need tenant_admin
  {
    key: "white-label",
    label: "White label",
    path: "/white-label",
    group: "settings",
    minRole: "viewer",
    blurb:
      "Your brand on pages and emails (name, colours, logo) and your own hostname for links, with its DNS records.",
  },
  // GET /v1/webhooks and /v1/automation-rules: every role reads them; their writes need tenant_admin and manager
  {
    key: "webhooks",
    label: "Webhooks",
    path: "/webhooks",
    group: "settings",
    minRole: "viewer",
    blurb: "Send events to your own systems: endpoints, test sends, recent deliveries and their retries.",
  },
  {
    key: "automation",
    label: "Automation",
    path: "/automation",
    group: "settings",
    minRole: "viewer",
    blurb: "Rules that act on events: notify, assign, tag, draft a reply, call a URL; their recent runs.",
  },
  // POST /v1/exports and GET /v1/exports/{id}: tenant_admin
  {
    key: "data-export",
    label: "Data export",
    path: "/data-export",
    group: "settings",
    minRole: "tenant_admin",
    blurb: "All of this business's data in one file (JSON Lines), made in the background.",
  },
] as const satisfies readonly SectionLink[];

/** A section of a tenant page, or one of the pages outside a tenant. */
export type Section =
  | (typeof TENANT_SECTIONS)[number]["key"]
  | "tenants"
  | "me"
  | "confirm"
  | "connected-apps"
  | "agency"
  | "platform";
