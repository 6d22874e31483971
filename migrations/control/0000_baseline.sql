CREATE TABLE `password_credentials` (
	`user_id` text PRIMARY KEY NOT NULL,
	`hash` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `platform_state` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `role_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`scope_type` text NOT NULL,
	`scope_id` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `role_assignments_uq` ON `role_assignments` (`user_id`,`role`,`scope_type`,`scope_id`);--> statement-breakpoint
CREATE INDEX `role_assignments_scope_idx` ON `role_assignments` (`scope_type`,`scope_id`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`created_by_user_id` text,
	`created_at` text NOT NULL,
	`expires_at` text,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant_created_idx` ON `api_keys` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `api_keys_created_by_idx` ON `api_keys` (`created_by_user_id`);--> statement-breakpoint
CREATE TABLE `user_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`purpose` text NOT NULL,
	`token_hash` text NOT NULL,
	`tenant_id` text,
	`expires_at` text NOT NULL,
	`used_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_tokens_hash_uq` ON `user_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `user_tokens_user_idx` ON `user_tokens` (`user_id`,`purpose`);--> statement-breakpoint
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
--> statement-breakpoint
CREATE TABLE `dead_letters` (
	`id` text PRIMARY KEY NOT NULL,
	`queue` text NOT NULL,
	`message_id` text NOT NULL,
	`body` text NOT NULL,
	`attempts` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dead_letters_message_id_unique` ON `dead_letters` (`message_id`);--> statement-breakpoint
CREATE INDEX `dead_letters_created_idx` ON `dead_letters` (`created_at`);--> statement-breakpoint
CREATE TABLE `custom_hostnames` (
	`id` text PRIMARY KEY NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`agency_id` text NOT NULL,
	`hostname` text NOT NULL,
	`provider_id` text,
	`status` text NOT NULL,
	`ssl_status` text,
	`verification` text DEFAULT '{}' NOT NULL,
	`activated_at` text,
	`last_checked_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_hostnames_hostname_uq` ON `custom_hostnames` (`hostname`);--> statement-breakpoint
CREATE INDEX `custom_hostnames_scope_created_idx` ON `custom_hostnames` (`scope`,`scope_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `custom_hostnames_checked_idx` ON `custom_hostnames` (`last_checked_at`,`id`);--> statement-breakpoint
CREATE TABLE `white_label_brands` (
	`id` text PRIMARY KEY NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`agency_id` text NOT NULL,
	`name` text,
	`logo_url` text,
	`primary_color` text,
	`accent_color` text,
	`support_email` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `white_label_brands_scope_uq` ON `white_label_brands` (`scope`,`scope_id`);