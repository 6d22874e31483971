CREATE TABLE `analytics_funnel_daily` (
	`tenant_id` text NOT NULL,
	`day` text NOT NULL,
	`location_id` text NOT NULL,
	`channel` text NOT NULL,
	`campaign_id` text NOT NULL,
	`template_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`requested` integer NOT NULL,
	`sent` integer NOT NULL,
	`delivered` integer NOT NULL,
	`clicked` integer NOT NULL,
	`converted` integer NOT NULL,
	`blocked` integer NOT NULL,
	`blocked_by_cap` integer NOT NULL,
	`failed` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `day`, `location_id`, `channel`, `campaign_id`, `template_id`, `variant_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_funnel_location_day_idx` ON `analytics_funnel_daily` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE INDEX `analytics_funnel_campaign_day_idx` ON `analytics_funnel_daily` (`tenant_id`,`campaign_id`,`day`);--> statement-breakpoint
CREATE TABLE `analytics_response_daily` (
	`tenant_id` text NOT NULL,
	`day` text NOT NULL,
	`location_id` text NOT NULL,
	`reviews` integer NOT NULL,
	`responded` integer NOT NULL,
	`response_minutes` text NOT NULL,
	`sla_covered` integer NOT NULL,
	`sla_met` integer NOT NULL,
	`sla_missed` integer NOT NULL,
	`sla_open_due` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `day`, `location_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_response_location_day_idx` ON `analytics_response_daily` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE TABLE `analytics_review_daily` (
	`tenant_id` text NOT NULL,
	`day` text NOT NULL,
	`location_id` text NOT NULL,
	`site_type` text NOT NULL,
	`reviews` integer NOT NULL,
	`rated` integer NOT NULL,
	`rating_sum` real NOT NULL,
	`rating_1` integer NOT NULL,
	`rating_2` integer NOT NULL,
	`rating_3` integer NOT NULL,
	`rating_4` integer NOT NULL,
	`rating_5` integer NOT NULL,
	`positive` integer NOT NULL,
	`neutral` integer NOT NULL,
	`negative` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `day`, `location_id`, `site_type`)
);
--> statement-breakpoint
CREATE INDEX `analytics_review_location_day_idx` ON `analytics_review_daily` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE TABLE `competitors` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`name` text NOT NULL,
	`website_url` text,
	`google_place_id` text,
	`yelp_business_id` text,
	`facebook_page_id` text,
	`tripadvisor_id` text,
	`trustpilot_business_unit_id` text,
	`average_rating` real,
	`review_count` integer,
	`by_site` text DEFAULT '{}' NOT NULL,
	`last_refreshed_at` text,
	`last_refresh_status` text,
	`last_refresh_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `competitors_tenant_created_idx` ON `competitors` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `competitors_location_idx` ON `competitors` (`location_id`);--> statement-breakpoint
CREATE INDEX `competitors_refresh_idx` ON `competitors` (`last_refreshed_at`);--> statement-breakpoint
CREATE TABLE `recommendation_runs` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`last_run_day` text NOT NULL,
	`last_run_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `recommendation_runs_day_idx` ON `recommendation_runs` (`last_run_day`);--> statement-breakpoint
CREATE TABLE `recommendations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`scope_type` text NOT NULL,
	`scope_id` text NOT NULL,
	`type` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`priority` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`confidence` real NOT NULL,
	`risk_level` text NOT NULL,
	`action_payload` text DEFAULT '{}' NOT NULL,
	`evidence` text DEFAULT '{}' NOT NULL,
	`dedupe_key` text NOT NULL,
	`snoozed_until` text,
	`decided_by_user_id` text,
	`decided_at` text,
	`applied_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `recommendations_tenant_created_idx` ON `recommendations` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `recommendations_open_uq` ON `recommendations` (`tenant_id`,`dedupe_key`) WHERE status in ('pending', 'snoozed', 'accepted');--> statement-breakpoint
CREATE INDEX `recommendations_key_idx` ON `recommendations` (`tenant_id`,`dedupe_key`,`updated_at`);--> statement-breakpoint
CREATE INDEX `recommendations_snoozed_idx` ON `recommendations` (`status`,`snoozed_until`);--> statement-breakpoint
CREATE TABLE `reputation_scores` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`day` text NOT NULL,
	`score` integer NOT NULL,
	`rating` real NOT NULL,
	`velocity` real NOT NULL,
	`sentiment` real NOT NULL,
	`response_health` real NOT NULL,
	`platform_diversity` real NOT NULL,
	`inputs` text DEFAULT '{}' NOT NULL,
	`computed_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reputation_scores_location_day_uq` ON `reputation_scores` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE INDEX `reputation_scores_location_idx` ON `reputation_scores` (`location_id`,`day`);--> statement-breakpoint
CREATE INDEX `solicitations_tenant_location_created_idx` ON `solicitations` (`tenant_id`,`location_id`,`created_at`);