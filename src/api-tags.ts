/**
 * The document's tags: one per feature module, named for what an API consumer sees (SDK generators
 * group methods into one client class per tag). A route mounted under another module's path carries
 * that path's tag (campaign sends -> Campaigns, location variables -> Locations, /admin/* -> Admin);
 * the providers' inbound callbacks share one tag because no SDK user calls them. Listed in reading
 * order; test/node/openapi-sdk.test.ts checks every operation has exactly one listed tag.
 */
export const API_TAGS = [
  { name: "Auth", description: "Log in, accept an invite, reset a password; the caller's profile (/me)" },
  { name: "Users", description: "The tenant's users, invites and role assignments" },
  { name: "API keys", description: "Long-lived tenant credentials for integrations; the raw key is shown once" },
  { name: "OAuth", description: "OAuth 2.1 for MCP clients: authorization, tokens and the apps a user connected" },
  { name: "Brands", description: "Brands of a tenant; locations belong to a brand" },
  { name: "Locations", description: "Business locations, their review-site profiles and template variables" },
  {
    name: "Contacts",
    description: "Customers to ask for reviews: upsert, CSV and CRM import, suppression, consent, GDPR",
  },
  { name: "Templates", description: "Email, SMS and WhatsApp message templates, versions and approval" },
  { name: "Campaigns", description: "Review-request campaigns: templates, follow-up sequence, activation and sends" },
  { name: "Solicitations", description: "Single review requests and their delivery state" },
  { name: "Experiments", description: "A/B tests of templates within a campaign" },
  { name: "Surveys", description: "Post-experience surveys attached to campaigns, and their answers" },
  {
    name: "Reviews",
    description: "Reviews from the review sites, responses and their approval, SLA rules, auto replies",
  },
  { name: "Inbox", description: "Reviews and private feedback in one work queue: status, assignment, notes, tags" },
  { name: "Feedback", description: "The public feedback page behind a review request's link (token in the path)" },
  { name: "Review links", description: "Write-a-review links with QR codes, weighted across review sites" },
  {
    name: "Links",
    description: "The short links and unsubscribe pages that messages carry (public, token in the path)",
  },
  { name: "Widgets", description: "Embeddable review widgets and their public page, script and JSON" },
  { name: "Alerts", description: "Alert subscriptions (instant and digest emails) and their unsubscribe page" },
  { name: "Analytics", description: "Rollups of reviews, requests and responses" },
  { name: "Reputation score", description: "A location's daily reputation score and its history" },
  { name: "Competitors", description: "Competitors tracked per location" },
  { name: "Recommendations", description: "Suggested actions computed from the tenant's data" },
  { name: "Automation rules", description: "Rules that act on new reviews and feedback, and their runs" },
  {
    name: "Webhooks",
    description: "Signed webhooks to the customer's endpoints: subscriptions, deliveries, redelivery",
  },
  { name: "Integrations", description: "Connections to review sites and CRMs" },
  { name: "Messaging settings", description: "The tenant's email, SMS and WhatsApp providers and senders" },
  { name: "Compliance", description: "Quiet hours, frequency caps, consent and data-subject settings" },
  { name: "SSO", description: "SAML single sign-on: the tenant's configuration and the SAML endpoints" },
  { name: "Regions", description: "Groups of locations" },
  { name: "Audit", description: "The tenant's audit trail and its CSV export" },
  { name: "Jobs", description: "Background jobs (imports, bulk sends) and their progress" },
  { name: "Exports", description: "The tenant data export: every row the tenant owns as a JSON Lines file" },
  { name: "Agents", description: "AI agents that draft responses and analyse reviews" },
  { name: "Assistant", description: "The conversational assistant and its conversations" },
  { name: "MCP", description: "The Model Context Protocol endpoint for AI assistants and its skill catalog" },
  { name: "White label", description: "Agency and tenant branding and custom hostnames" },
  { name: "Agency", description: "An agency's view across the tenants it owns" },
  { name: "Admin", description: "Platform administration: tenants, agencies, shard moves, dead letters, status" },
  {
    name: "Provider callbacks",
    description: "Inbound callbacks from messaging providers and review sites (provider-signed)",
  },
  { name: "System", description: "Liveness, first-run bootstrap and this API reference" },
] as const;
