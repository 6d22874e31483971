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