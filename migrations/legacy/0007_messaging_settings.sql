CREATE TABLE `messaging_settings` (
	`tenant_id` text NOT NULL,
	`channel` text NOT NULL,
	`provider` text NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`options` text DEFAULT '{}' NOT NULL,
	`credentials` text,
	`credential_fields` text DEFAULT '[]' NOT NULL,
	`fallback_to_platform` integer DEFAULT false NOT NULL,
	`dkim_status` text DEFAULT 'pending' NOT NULL,
	`dmarc_status` text DEFAULT 'pending' NOT NULL,
	`domain_check` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `channel`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
