CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`message_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`redelivery_of` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`response_status` integer,
	`response_body` text,
	`latency_ms` integer,
	`error` text,
	`last_attempt_at` text,
	`next_attempt_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_created_idx` ON `webhook_deliveries` (`tenant_id`,`subscription_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_idx` ON `webhook_deliveries` (`subscription_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_uq` ON `webhook_deliveries` (`subscription_id`,`event_id`) WHERE redelivery_of is null;--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`events` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`secret_encrypted` text NOT NULL,
	`failing_since` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`disabled_at` text,
	`disabled_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_tenant_created_idx` ON `webhook_subscriptions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_tenant_active_idx` ON `webhook_subscriptions` (`tenant_id`,`is_active`);--> statement-breakpoint
CREATE TABLE `automation_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`trigger_event_type` text NOT NULL,
	`location_id` text,
	`brand_id` text,
	`is_active` integer DEFAULT true NOT NULL,
	`conditions` text NOT NULL,
	`actions` text NOT NULL,
	`signing_secret_encrypted` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `automation_rules_tenant_created_idx` ON `automation_rules` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `automation_rules_trigger_idx` ON `automation_rules` (`tenant_id`,`trigger_event_type`,`is_active`);--> statement-breakpoint
CREATE INDEX `automation_rules_location_idx` ON `automation_rules` (`location_id`);--> statement-breakpoint
CREATE INDEX `automation_rules_brand_idx` ON `automation_rules` (`brand_id`);--> statement-breakpoint
CREATE TABLE `automation_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`outcome` text NOT NULL,
	`actions` text NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`rule_id`) REFERENCES `automation_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `automation_runs_rule_created_idx` ON `automation_runs` (`tenant_id`,`rule_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `automation_runs_rule_idx` ON `automation_runs` (`rule_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `automation_runs_rule_event_uq` ON `automation_runs` (`rule_id`,`event_id`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`subject_id` text,
	`counts` text DEFAULT '{}' NOT NULL,
	`cursor` text,
	`error` text,
	`created_by_user_id` text,
	`started_at` text,
	`finished_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `jobs_tenant_created_idx` ON `jobs` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_subject_idx` ON `jobs` (`subject_id`);