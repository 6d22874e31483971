ALTER TABLE `jobs` ADD `input` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `result` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `owner` text;