ALTER TABLE `review_responses` ADD `published_by_user_id` text;--> statement-breakpoint
ALTER TABLE `review_responses` ADD `published_url` text;