CREATE TABLE `review_responses` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`review_id` text NOT NULL,
	`text` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`assigned_to_user_id` text,
	`rejection_reason` text,
	`ai_generated` integer DEFAULT false NOT NULL,
	`created_by_user_id` text,
	`decided_by_user_id` text,
	`submitted_at` text,
	`decided_at` text,
	`published_at` text,
	`published_via` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `review_responses_review_idx` ON `review_responses` (`review_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `review_responses_tenant_status_idx` ON `review_responses` (`tenant_id`,`status`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `review_responses_assignee_idx` ON `review_responses` (`assigned_to_user_id`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`solicitation_id` text,
	`site_type` text NOT NULL,
	`external_review_id` text,
	`rating` real,
	`rating_max` real,
	`text` text,
	`author_name` text,
	`author_external_id` text,
	`language` text,
	`sentiment` text,
	`sentiment_score` real,
	`topics` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'new' NOT NULL,
	`is_first_party` integer DEFAULT false NOT NULL,
	`is_public` integer DEFAULT true NOT NULL,
	`external_url` text,
	`external_reply_text` text,
	`published_at` text,
	`occurred_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_tenant_site_external_uq` ON `reviews` (`tenant_id`,`site_type`,`external_review_id`) WHERE external_review_id is not null;--> statement-breakpoint
CREATE INDEX `reviews_tenant_occurred_idx` ON `reviews` (`tenant_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_location_occurred_idx` ON `reviews` (`tenant_id`,`location_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_site_occurred_idx` ON `reviews` (`tenant_id`,`site_type`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_sentiment_occurred_idx` ON `reviews` (`tenant_id`,`sentiment`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_rating_idx` ON `reviews` (`tenant_id`,`rating`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_status_created_idx` ON `reviews` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `reviews_location_idx` ON `reviews` (`location_id`);--> statement-breakpoint
CREATE INDEX `reviews_solicitation_idx` ON `reviews` (`solicitation_id`);--> statement-breakpoint
CREATE TABLE `sla_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`filter` text DEFAULT '{}' NOT NULL,
	`response_window_hours` integer NOT NULL,
	`escalate_after_hours` integer NOT NULL,
	`escalate_to_role` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sla_rules_tenant_created_idx` ON `sla_rules` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `sla_rules_active_idx` ON `sla_rules` (`is_active`,`tenant_id`);--> statement-breakpoint
CREATE TABLE `inbox_items` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`review_id` text,
	`feedback_id` text,
	`location_id` text,
	`status` text DEFAULT 'new' NOT NULL,
	`assigned_to_user_id` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`escalated_at` text,
	`escalation_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_created_idx` ON `inbox_items` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_review_idx` ON `inbox_items` (`review_id`);--> statement-breakpoint
CREATE INDEX `inbox_items_feedback_idx` ON `inbox_items` (`feedback_id`);--> statement-breakpoint
CREATE INDEX `inbox_items_location_idx` ON `inbox_items` (`location_id`);--> statement-breakpoint
CREATE TABLE `integrations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text,
	`connector_type` text NOT NULL,
	`name` text NOT NULL,
	`is_enabled` integer DEFAULT true NOT NULL,
	`is_sandbox` integer DEFAULT false NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`credentials_encrypted` text,
	`sync_requested_at` text,
	`last_sync_at` text,
	`last_sync_status` text,
	`last_sync_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `integrations_tenant_created_idx` ON `integrations` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `integrations_location_idx` ON `integrations` (`location_id`);--> statement-breakpoint
CREATE INDEX `integrations_enabled_idx` ON `integrations` (`is_enabled`,`connector_type`);