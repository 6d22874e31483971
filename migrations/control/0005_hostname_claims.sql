CREATE TABLE `custom_hostname_claim_guard` (
	`kind` text NOT NULL,
	CONSTRAINT "unverified_hostname_claims_exceeded" CHECK("custom_hostname_claim_guard"."kind" <> 'unverified'),
	CONSTRAINT "custom_hostnames_exceeded" CHECK("custom_hostname_claim_guard"."kind" <> 'total')
);
--> statement-breakpoint
CREATE TABLE `custom_hostname_claims` (
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`hostname` text NOT NULL,
	`first_claimed_at` text NOT NULL,
	`ownership_token` text NOT NULL,
	PRIMARY KEY(`scope`, `scope_id`, `hostname`)
);
--> statement-breakpoint
DROP INDEX `custom_hostnames_hostname_uq`;--> statement-breakpoint
ALTER TABLE `custom_hostnames` ADD `claimed_at` text;--> statement-breakpoint
CREATE UNIQUE INDEX `custom_hostnames_hostname_owner_uq` ON `custom_hostnames` (`hostname`,`scope`,`scope_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `custom_hostnames_verified_hostname_uq` ON `custom_hostnames` (`hostname`) WHERE verified_at is not null;--> statement-breakpoint
-- Claims made before this migration: each was first claimed when its row was created, and an unverified
-- one keeps its window and token if it is deleted and claimed again (docs/white-label.md "Ownership").
UPDATE `custom_hostnames` SET `claimed_at` = `created_at` WHERE `claimed_at` IS NULL;--> statement-breakpoint
INSERT OR IGNORE INTO `custom_hostname_claims` (`scope`, `scope_id`, `hostname`, `first_claimed_at`, `ownership_token`)
SELECT `scope`, `scope_id`, `hostname`, `created_at`, `ownership_token` FROM `custom_hostnames`
WHERE `verified_at` IS NULL AND `ownership_token` IS NOT NULL;
