CREATE TABLE `review_link_clicks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`review_link_id` text NOT NULL,
	`site` text NOT NULL,
	`source` text NOT NULL,
	`clicked_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `review_link_clicks_link_idx` ON `review_link_clicks` (`tenant_id`,`review_link_id`,`clicked_at`);--> statement-breakpoint
CREATE TABLE `review_links` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`weights` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_links_slug_uq` ON `review_links` (`slug`);--> statement-breakpoint
CREATE INDEX `review_links_tenant_created_idx` ON `review_links` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `review_links_location_idx` ON `review_links` (`location_id`);--> statement-breakpoint
CREATE TABLE `widgets` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text,
	`public_key` text NOT NULL,
	`name` text NOT NULL,
	`min_rating` integer DEFAULT 1 NOT NULL,
	`sites` text DEFAULT '[]' NOT NULL,
	`count` integer DEFAULT 5 NOT NULL,
	`order` text DEFAULT 'newest' NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `widgets_public_key_uq` ON `widgets` (`public_key`);--> statement-breakpoint
CREATE INDEX `widgets_tenant_created_idx` ON `widgets` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `widgets_location_idx` ON `widgets` (`location_id`);