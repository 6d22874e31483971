CREATE TABLE `inbox_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`inbox_item_id` text NOT NULL,
	`author_id` text,
	`author_type` text NOT NULL,
	`note` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`inbox_item_id`) REFERENCES `inbox_items`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `inbox_notes_item_created_idx` ON `inbox_notes` (`inbox_item_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_notes_tenant_idx` ON `inbox_notes` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `campaign_surveys` (
	`campaign_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`survey_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`survey_id`) REFERENCES `surveys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaign_surveys_survey_idx` ON `campaign_surveys` (`survey_id`);--> statement-breakpoint
CREATE INDEX `campaign_surveys_tenant_idx` ON `campaign_surveys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `feedback_submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`solicitation_id` text NOT NULL,
	`contact_id` text,
	`campaign_id` text,
	`survey_id` text,
	`type` text,
	`rating` integer,
	`nps_score` integer,
	`survey_type` text,
	`score` integer,
	`text` text,
	`follow_up_text` text,
	`callback_requested` integer DEFAULT false NOT NULL,
	`survey_responses` text DEFAULT '{}' NOT NULL,
	`sentiment` text,
	`sentiment_score` real,
	`topics` text DEFAULT '[]' NOT NULL,
	`landed_at` text,
	`submitted_at` text NOT NULL,
	`anonymized_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feedback_solicitation_uq` ON `feedback_submissions` (`solicitation_id`);--> statement-breakpoint
CREATE INDEX `feedback_tenant_created_idx` ON `feedback_submissions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `feedback_survey_submitted_idx` ON `feedback_submissions` (`survey_id`,`submitted_at`,`id`);--> statement-breakpoint
CREATE INDEX `feedback_contact_idx` ON `feedback_submissions` (`contact_id`);--> statement-breakpoint
CREATE INDEX `feedback_location_idx` ON `feedback_submissions` (`location_id`);--> statement-breakpoint
CREATE INDEX `feedback_retention_idx` ON `feedback_submissions` (`tenant_id`,`anonymized_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `feedback_views` (
	`solicitation_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`survey_id` text,
	`views` integer DEFAULT 1 NOT NULL,
	`first_viewed_at` text NOT NULL,
	`last_viewed_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `feedback_views_survey_idx` ON `feedback_views` (`survey_id`);--> statement-breakpoint
CREATE INDEX `feedback_views_tenant_idx` ON `feedback_views` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `surveys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`description` text,
	`questions` text DEFAULT '[]' NOT NULL,
	`is_template` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`launched_at` text,
	`closed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `surveys_tenant_created_idx` ON `surveys` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `inbox_items` ADD `escalated_by` text;--> statement-breakpoint
ALTER TABLE `inbox_items` ADD `rating` real;--> statement-breakpoint
ALTER TABLE `inbox_items` ADD `excerpt` text;--> statement-breakpoint
ALTER TABLE `inbox_items` ADD `sentiment` text;--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_status_created_idx` ON `inbox_items` (`tenant_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_type_created_idx` ON `inbox_items` (`tenant_id`,`type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_location_created_idx` ON `inbox_items` (`tenant_id`,`location_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_assignee_created_idx` ON `inbox_items` (`tenant_id`,`assigned_to_user_id`,`created_at`,`id`);--> statement-breakpoint
UPDATE `inbox_items` SET
	`rating` = (SELECT `rating` FROM `reviews` WHERE `reviews`.`id` = `inbox_items`.`review_id`),
	`sentiment` = (SELECT `sentiment` FROM `reviews` WHERE `reviews`.`id` = `inbox_items`.`review_id`),
	`excerpt` = (SELECT CASE WHEN length(`text`) > 160 THEN substr(`text`, 1, 159) || '…' ELSE `text` END FROM `reviews` WHERE `reviews`.`id` = `inbox_items`.`review_id`)
WHERE `type` = 'review';
