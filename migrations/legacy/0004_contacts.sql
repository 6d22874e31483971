CREATE TABLE `consent_records` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`seq` integer NOT NULL,
	`source` text NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `consent_contact_channel_seq_uq` ON `consent_records` (`contact_id`,`channel`,`seq`);--> statement-breakpoint
CREATE INDEX `consent_tenant_contact_idx` ON `consent_records` (`tenant_id`,`contact_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_counts` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`email` text,
	`phone` text,
	`first_name` text,
	`last_name` text,
	`locale` text,
	`timezone` text,
	`is_suppressed` integer DEFAULT false NOT NULL,
	`suppressed_at` text,
	`suppression_reason` text,
	`external_ids` text DEFAULT '{}' NOT NULL,
	`source_metadata` text DEFAULT '{}' NOT NULL,
	`name_key` text,
	`name_key_reversed` text,
	`last_activity_at` text,
	`anonymized_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_tenant_email_uq` ON `contacts` (`tenant_id`,`email`) WHERE email is not null;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_tenant_phone_uq` ON `contacts` (`tenant_id`,`phone`) WHERE phone is not null;--> statement-breakpoint
CREATE INDEX `contacts_tenant_created_idx` ON `contacts` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_tenant_name_idx` ON `contacts` (`tenant_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `contacts_tenant_name_rev_idx` ON `contacts` (`tenant_id`,`name_key_reversed`);--> statement-breakpoint
CREATE INDEX `contacts_tenant_activity_idx` ON `contacts` (`tenant_id`,`last_activity_at`);--> statement-breakpoint
CREATE TABLE `compliance_configs` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`healthcare_safe_mode` integer NOT NULL,
	`retention_days` integer NOT NULL,
	`require_double_opt_in` integer NOT NULL,
	`allow_data_export` integer NOT NULL,
	`allow_data_deletion` integer NOT NULL,
	`quiet_hours_start` text NOT NULL,
	`quiet_hours_end` text NOT NULL,
	`frequency_cap_daily` integer NOT NULL,
	`frequency_cap_weekly` integer NOT NULL,
	`require_email_consent` integer NOT NULL,
	`require_sms_opt_in` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
