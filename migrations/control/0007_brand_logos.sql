CREATE TABLE `brand_logos` (
	`id` text PRIMARY KEY NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`agency_id` text NOT NULL,
	`content_type` text NOT NULL,
	`data_base64` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `brand_logos_owner_uq` ON `brand_logos` (`scope`,`scope_id`);