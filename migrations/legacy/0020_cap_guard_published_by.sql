CREATE TABLE `frequency_cap_guard` (
	`contact_id` text NOT NULL,
	CONSTRAINT "frequency_cap_exceeded" CHECK(0)
);
--> statement-breakpoint
ALTER TABLE `review_responses` ADD `published_by_user_id` text;--> statement-breakpoint
ALTER TABLE `review_responses` ADD `published_url` text;