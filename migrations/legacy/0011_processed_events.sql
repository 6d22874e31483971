CREATE TABLE `processed_events` (
	`event_id` text NOT NULL,
	`handler` text NOT NULL,
	`processed_at` text NOT NULL,
	PRIMARY KEY(`event_id`, `handler`)
);
--> statement-breakpoint
CREATE INDEX `processed_events_at_idx` ON `processed_events` (`processed_at`);