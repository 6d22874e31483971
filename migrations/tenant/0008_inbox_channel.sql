ALTER TABLE `inbox_items` ADD `channel` text;--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_channel_created_idx` ON `inbox_items` (`tenant_id`,`channel`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_rating_created_idx` ON `inbox_items` (`tenant_id`,`rating`,`created_at`,`id`);--> statement-breakpoint
-- backfill: a review item's channel is its review's site, a feedback item's the channel of the request it answered
UPDATE `inbox_items` SET `channel` = (SELECT `site_type` FROM `reviews` WHERE `reviews`.`id` = `inbox_items`.`review_id`) WHERE `type` = 'review' AND `channel` IS NULL;--> statement-breakpoint
UPDATE `inbox_items` SET `channel` = (SELECT `solicitations`.`channel` FROM `feedback_submissions` JOIN `solicitations` ON `solicitations`.`id` = `feedback_submissions`.`solicitation_id` WHERE `feedback_submissions`.`id` = `inbox_items`.`feedback_id`) WHERE `type` = 'feedback' AND `channel` IS NULL;
