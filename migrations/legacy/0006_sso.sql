CREATE TABLE `saml_assertions` (
	`tenant_id` text NOT NULL,
	`assertion_id` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `assertion_id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `saml_assertions_expires_idx` ON `saml_assertions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `saml_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`consumed_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `saml_requests_tenant_idx` ON `saml_requests` (`tenant_id`);--> statement-breakpoint
CREATE INDEX `saml_requests_expires_idx` ON `saml_requests` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sso_configs` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`entry_point` text,
	`issuer` text NOT NULL,
	`idp_entity_id` text,
	`callback_url` text,
	`signature_algorithm` text DEFAULT 'sha256' NOT NULL,
	`attribute_mapping` text DEFAULT '{}' NOT NULL,
	`idp_certificates` text DEFAULT '[]' NOT NULL,
	`jit_provisioning` integer DEFAULT false NOT NULL,
	`default_role` text DEFAULT 'tenant_user' NOT NULL,
	`enforce_sso` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
