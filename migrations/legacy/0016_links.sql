CREATE TABLE `link_clicks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`solicitation_id` text NOT NULL,
	`source` text NOT NULL,
	`clicked_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `link_clicks_solicitation_idx` ON `link_clicks` (`solicitation_id`,`clicked_at`);--> statement-breakpoint
CREATE INDEX `link_clicks_tenant_idx` ON `link_clicks` (`tenant_id`,`clicked_at`);--> statement-breakpoint
CREATE TABLE `sequence_enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`location_id` text NOT NULL,
	`origin_solicitation_id` text NOT NULL,
	`status` text NOT NULL,
	`stop_reason` text,
	`last_step_index` integer NOT NULL,
	`next_step_index` integer,
	`due_at` text,
	`started_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sequence_enrollments_origin_solicitation_id_unique` ON `sequence_enrollments` (`origin_solicitation_id`);--> statement-breakpoint
CREATE INDEX `sequence_enrollments_due_idx` ON `sequence_enrollments` (`due_at`,`id`) WHERE status = 'active';--> statement-breakpoint
CREATE INDEX `sequence_enrollments_contact_idx` ON `sequence_enrollments` (`tenant_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `sequence_enrollments_campaign_idx` ON `sequence_enrollments` (`campaign_id`);--> statement-breakpoint
CREATE TABLE `sequence_step_runs` (
	`enrollment_id` text NOT NULL,
	`step_index` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`solicitation_id` text,
	`claimed_at` text NOT NULL,
	PRIMARY KEY(`enrollment_id`, `step_index`)
);
--> statement-breakpoint
CREATE INDEX `sequence_step_runs_solicitation_idx` ON `sequence_step_runs` (`solicitation_id`);