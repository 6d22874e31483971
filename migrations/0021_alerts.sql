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