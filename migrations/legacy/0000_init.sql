CREATE TABLE `agencies` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agencies_slug_unique` ON `agencies` (`slug`);--> statement-breakpoint
CREATE TABLE `brands` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`logo_url` text,
	`website_url` text,
	`corporate_address` text,
	`google_my_business_url` text,
	`google_place_id` text,
	`yelp_url` text,
	`yelp_business_id` text,
	`facebook_url` text,
	`facebook_page_id` text,
	`brand_voice` text,
	`brand_tone` text,
	`brand_description` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `brands_tenant_slug_uq` ON `brands` (`tenant_id`,`slug`);--> statement-breakpoint
CREATE INDEX `brands_tenant_created_idx` ON `brands` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `locations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`brand_id` text NOT NULL,
	`region_id` text,
	`name` text NOT NULL,
	`external_id` text,
	`address_line1` text,
	`address_line2` text,
	`city` text,
	`state` text,
	`postal_code` text,
	`country` text DEFAULT 'US' NOT NULL,
	`timezone` text DEFAULT 'UTC' NOT NULL,
	`locale` text DEFAULT 'en-US' NOT NULL,
	`phone` text,
	`email` text,
	`website_url` text,
	`google_my_business_url` text,
	`google_place_id` text,
	`yelp_url` text,
	`yelp_business_id` text,
	`facebook_url` text,
	`facebook_page_id` text,
	`latitude` real,
	`longitude` real,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`region_id`) REFERENCES `regions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `locations_tenant_created_idx` ON `locations` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `locations_brand_idx` ON `locations` (`brand_id`);--> statement-breakpoint
CREATE INDEX `locations_region_idx` ON `locations` (`region_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `locations_tenant_external_uq` ON `locations` (`tenant_id`,`external_id`) WHERE external_id is not null;--> statement-breakpoint
CREATE TABLE `regions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`code` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `regions_tenant_name_uq` ON `regions` (`tenant_id`,`name`);--> statement-breakpoint
CREATE INDEX `regions_tenant_created_idx` ON `regions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`plan` text DEFAULT 'starter' NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`paused_at` text,
	`paused_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_slug_unique` ON `tenants` (`slug`);--> statement-breakpoint
CREATE INDEX `tenants_agency_created_idx` ON `tenants` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tenants_created_idx` ON `tenants` (`created_at`,`id`);--> statement-breakpoint
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
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`auth_provider` text DEFAULT 'password' NOT NULL,
	`avatar_url` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_tenant_created_idx` ON `users` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`actor_id` text,
	`actor_type` text NOT NULL,
	`action` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`previous_state` text,
	`next_state` text,
	`metadata` text,
	`ip_address` text,
	`user_agent` text,
	`occurred_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_tenant_occurred_idx` ON `audit_events` (`tenant_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_resource_idx` ON `audit_events` (`resource_type`,`resource_id`);--> statement-breakpoint
CREATE INDEX `audit_occurred_idx` ON `audit_events` (`occurred_at`,`id`);--> statement-breakpoint
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
CREATE TABLE `domain_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`occurred_at` text NOT NULL,
	`dispatched_at` text
);
--> statement-breakpoint
CREATE INDEX `domain_events_pending_idx` ON `domain_events` (`dispatched_at`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `domain_events_tenant_idx` ON `domain_events` (`tenant_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE TABLE `outbox_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`channel` text NOT NULL,
	`to` text NOT NULL,
	`subject` text,
	`html` text,
	`text` text,
	`headers` text DEFAULT '{}' NOT NULL,
	`solicitation_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_created_idx` ON `outbox_messages` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `outbox_tenant_created_idx` ON `outbox_messages` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `outbox_solicitation_idx` ON `outbox_messages` (`solicitation_id`);