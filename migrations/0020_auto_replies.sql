CREATE TABLE `auto_replies` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`review_id` text NOT NULL,
	`response_id` text,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`publish_at` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`cancel_reason` text,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`response_id`) REFERENCES `review_responses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auto_replies_tenant_review_uq` ON `auto_replies` (`tenant_id`,`review_id`);--> statement-breakpoint
CREATE INDEX `auto_replies_tenant_created_idx` ON `auto_replies` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `auto_replies_due_idx` ON `auto_replies` (`status`,`publish_at`);--> statement-breakpoint
CREATE INDEX `auto_replies_response_idx` ON `auto_replies` (`response_id`);--> statement-breakpoint
CREATE INDEX `auto_replies_rule_idx` ON `auto_replies` (`rule_id`);--> statement-breakpoint
CREATE TABLE `auto_reply_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`location_id` text,
	`site_type` text,
	`ratings` text NOT NULL,
	`allow_low_ratings` integer DEFAULT false NOT NULL,
	`text_condition` text DEFAULT 'any' NOT NULL,
	`keywords` text DEFAULT '[]' NOT NULL,
	`source` text NOT NULL,
	`template` text,
	`mode` text DEFAULT 'approval' NOT NULL,
	`delay_minutes` integer,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `auto_reply_rules_tenant_created_idx` ON `auto_reply_rules` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `auto_reply_rules_tenant_active_idx` ON `auto_reply_rules` (`tenant_id`,`is_active`);--> statement-breakpoint
CREATE INDEX `auto_reply_rules_location_idx` ON `auto_reply_rules` (`location_id`);--> statement-breakpoint
CREATE TABLE `auto_reply_settings` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`auto_publish_enabled` integer DEFAULT false NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
