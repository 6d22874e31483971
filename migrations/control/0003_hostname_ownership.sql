ALTER TABLE `custom_hostnames` ADD `ownership_token` text;--> statement-breakpoint
ALTER TABLE `custom_hostnames` ADD `verified_at` text;--> statement-breakpoint
-- Claims made before ownership verification existed: each gets its own token; hostnames already
-- activated then are taken as verified when they were activated (docs/white-label.md "Ownership").
UPDATE `custom_hostnames` SET `ownership_token` = lower(hex(randomblob(16))) WHERE `ownership_token` IS NULL;--> statement-breakpoint
UPDATE `custom_hostnames` SET `verified_at` = `activated_at` WHERE `activated_at` IS NOT NULL AND `verified_at` IS NULL;
