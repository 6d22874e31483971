CREATE TABLE `location_variables` (
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`location_id`, `key`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `location_variables_tenant_key_idx` ON `location_variables` (`tenant_id`,`key`);--> statement-breakpoint
CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`root_id` text NOT NULL,
	`name` text NOT NULL,
	`channel` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`subject` text,
	`body_html` text,
	`body_text` text,
	`locale` text DEFAULT 'en-US' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`tokens` text DEFAULT '[]' NOT NULL,
	`created_by_user_id` text NOT NULL,
	`approved_by_user_id` text,
	`approved_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `templates_tenant_created_idx` ON `templates` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `templates_root_version_uq` ON `templates` (`root_id`,`version`);--> statement-breakpoint
CREATE UNIQUE INDEX `templates_root_approved_uq` ON `templates` (`root_id`) WHERE status = 'approved';--> statement-breakpoint
CREATE UNIQUE INDEX `templates_root_draft_uq` ON `templates` (`root_id`) WHERE status = 'draft';--> statement-breakpoint
CREATE TABLE `campaign_sequences` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_sequences_campaign_id_unique` ON `campaign_sequences` (`campaign_id`);--> statement-breakpoint
CREATE INDEX `sequences_tenant_idx` ON `campaign_sequences` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `campaign_template_bindings` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`template_id` text NOT NULL,
	`channel` text NOT NULL,
	`locale` text DEFAULT 'en-US' NOT NULL,
	`variant_key` text DEFAULT 'control' NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`is_control` integer DEFAULT true NOT NULL,
	`active_from` text,
	`active_to` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bindings_campaign_idx` ON `campaign_template_bindings` (`campaign_id`,`channel`,`priority`);--> statement-breakpoint
CREATE INDEX `bindings_template_idx` ON `campaign_template_bindings` (`template_id`);--> statement-breakpoint
CREATE INDEX `bindings_tenant_idx` ON `campaign_template_bindings` (`tenant_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `bindings_campaign_template_uq` ON `campaign_template_bindings` (`campaign_id`,`template_id`,`channel`,`locale`,`variant_key`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text,
	`brand_id` text,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`channels` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`starts_at` text,
	`ends_at` text,
	`metadata` text DEFAULT '{}' NOT NULL,
	`review_destination` text DEFAULT 'auto' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaigns_tenant_created_idx` ON `campaigns` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `campaigns_location_idx` ON `campaigns` (`location_id`);--> statement-breakpoint
CREATE INDEX `campaigns_brand_idx` ON `campaigns` (`brand_id`);--> statement-breakpoint
CREATE TABLE `sequence_steps` (
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`step_index` integer NOT NULL,
	`channel` text NOT NULL,
	`delay_days` integer NOT NULL,
	`template_id` text,
	PRIMARY KEY(`campaign_id`, `step_index`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sequence_steps_template_idx` ON `sequence_steps` (`template_id`);--> statement-breakpoint
CREATE INDEX `sequence_steps_tenant_idx` ON `sequence_steps` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text,
	`location_id` text,
	`name` text NOT NULL,
	`hypothesis` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`variants` text NOT NULL,
	`winner_variant_id` text,
	`started_at` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `experiments_tenant_created_idx` ON `experiments` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `experiments_campaign_idx` ON `experiments` (`campaign_id`);--> statement-breakpoint
CREATE INDEX `experiments_location_idx` ON `experiments` (`location_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `experiments_campaign_running_uq` ON `experiments` (`campaign_id`) WHERE status = 'running';