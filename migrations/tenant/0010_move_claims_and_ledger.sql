ALTER TABLE `processed_events` ADD `tenant_id` text;--> statement-breakpoint
CREATE INDEX `processed_events_tenant_idx` ON `processed_events` (`tenant_id`,`event_id`,`handler`);--> statement-breakpoint
ALTER TABLE `send_records` ADD `tenant_id` text;--> statement-breakpoint
CREATE INDEX `send_records_tenant_idx` ON `send_records` (`tenant_id`,`solicitation_id`);--> statement-breakpoint
-- hand-written: the rows written before this migration take their tenant from the solicitation or event they
-- belong to (one indexed lookup per row, by primary key); a row whose solicitation or event is already gone
-- keeps a null tenant and stays on its shard, as every such row did before (docs/scaling.md, Moving a tenant)
UPDATE `send_records` SET `tenant_id` = (SELECT `tenant_id` FROM `solicitations` WHERE `solicitations`.`id` = `send_records`.`solicitation_id`) WHERE `tenant_id` IS NULL;--> statement-breakpoint
UPDATE `processed_events` SET `tenant_id` = (SELECT `tenant_id` FROM `domain_events` WHERE `domain_events`.`id` = `processed_events`.`event_id`) WHERE `tenant_id` IS NULL;