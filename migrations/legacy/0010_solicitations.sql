CREATE TABLE `idempotency_keys` (
	`tenant_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `send_records` (
	`solicitation_id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`provider_message_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `solicitations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`campaign_id` text,
	`template_id` text,
	`experiment_id` text,
	`variant_id` text,
	`sequence_step_index` integer,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`short_link_token` text NOT NULL,
	`destination_url` text,
	`blocked_reason` text,
	`provider` text,
	`provider_message_id` text,
	`failure_reason` text,
	`sent_at` text,
	`delivered_at` text,
	`clicked_at` text,
	`converted_at` text,
	`idempotency_key` text,
	`metadata` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `solicitations_tenant_created_idx` ON `solicitations` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `solicitations_contact_created_idx` ON `solicitations` (`tenant_id`,`contact_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `solicitations_campaign_created_idx` ON `solicitations` (`campaign_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `solicitations_location_idx` ON `solicitations` (`location_id`);--> statement-breakpoint
CREATE INDEX `solicitations_provider_message_idx` ON `solicitations` (`provider_message_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `solicitations_short_link_uq` ON `solicitations` (`short_link_token`);