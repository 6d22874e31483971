CREATE TABLE `whatsapp_templates` (
	`tenant_id` text NOT NULL,
	`provider` text NOT NULL,
	`name` text NOT NULL,
	`language` text NOT NULL,
	`provider_template_id` text,
	`status` text,
	`reason` text,
	`category` text,
	`pending_category` text,
	`pending_category_at` text,
	`status_at` text,
	`category_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `provider`, `name`, `language`)
);
--> statement-breakpoint
ALTER TABLE `integrations` ADD `attention_code` text;--> statement-breakpoint
ALTER TABLE `integrations` ADD `attention_message` text;--> statement-breakpoint
ALTER TABLE `integrations` ADD `attention_at` text;--> statement-breakpoint
ALTER TABLE `integrations` ADD `reply_access` text;--> statement-breakpoint
ALTER TABLE `integrations` ADD `reply_access_checked_at` text;--> statement-breakpoint
ALTER TABLE `integrations` ADD `last_webhook_at` text;