ALTER TABLE `review_responses` ADD `provider_state` text;--> statement-breakpoint
ALTER TABLE `review_responses` ADD `provider_policy_violation` text;--> statement-breakpoint
ALTER TABLE `review_responses` ADD `provider_checked_at` text;--> statement-breakpoint
CREATE INDEX `review_responses_provider_state_idx` ON `review_responses` (`provider_state`,`provider_checked_at`);--> statement-breakpoint
ALTER TABLE `integrations` ADD `site_verified` integer;--> statement-breakpoint
ALTER TABLE `integrations` ADD `site_verified_at` text;