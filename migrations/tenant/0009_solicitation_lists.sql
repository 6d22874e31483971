DROP INDEX `solicitations_contact_created_idx`;--> statement-breakpoint
DROP INDEX `solicitations_tenant_location_created_idx`;--> statement-breakpoint
CREATE INDEX `solicitations_tenant_status_created_idx` ON `solicitations` (`tenant_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `solicitations_tenant_channel_created_idx` ON `solicitations` (`tenant_id`,`channel`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `solicitations_tenant_blocked_created_idx` ON `solicitations` (`tenant_id`,`blocked_reason`,`created_at`,`id`) WHERE blocked_reason is not null;--> statement-breakpoint
CREATE INDEX `solicitations_contact_created_idx` ON `solicitations` (`tenant_id`,`contact_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `solicitations_tenant_location_created_idx` ON `solicitations` (`tenant_id`,`location_id`,`created_at`,`id`);