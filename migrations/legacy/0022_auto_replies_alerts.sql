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
--> statement-breakpoint
CREATE TABLE `alert_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`key` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`period_start` text,
	`period_end` text,
	`summary` text DEFAULT '{}' NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`sent_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscription_id`) REFERENCES `alert_subscriptions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_sends_subscription_key_uq` ON `alert_sends` (`subscription_id`,`key`);--> statement-breakpoint
CREATE INDEX `alert_sends_tenant_subscription_created_idx` ON `alert_sends` (`tenant_id`,`subscription_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `alert_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`location_id` text,
	`instant_email` integer DEFAULT true NOT NULL,
	`webhook_id` text,
	`max_rating` integer,
	`site_types` text DEFAULT '[]' NOT NULL,
	`keywords` text DEFAULT '[]' NOT NULL,
	`digest_frequency` text DEFAULT 'none' NOT NULL,
	`digest_hour` integer DEFAULT 8 NOT NULL,
	`digest_weekday` integer DEFAULT 1 NOT NULL,
	`time_zone` text NOT NULL,
	`next_digest_at` text,
	`instant_unsubscribed_at` text,
	`digest_unsubscribed_at` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `alert_subscriptions_tenant_created_idx` ON `alert_subscriptions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_tenant_active_idx` ON `alert_subscriptions` (`tenant_id`,`is_active`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_user_idx` ON `alert_subscriptions` (`user_id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_location_idx` ON `alert_subscriptions` (`location_id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_webhook_idx` ON `alert_subscriptions` (`webhook_id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_due_idx` ON `alert_subscriptions` (`next_digest_at`) WHERE next_digest_at is not null;