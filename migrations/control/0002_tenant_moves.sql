CREATE TABLE `tenant_moves` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`from_shard` integer NOT NULL,
	`to_shard` integer NOT NULL,
	`state` text NOT NULL,
	`step` integer DEFAULT 0 NOT NULL,
	`not_before` text,
	`table_index` integer DEFAULT 0 NOT NULL,
	`cursor` text DEFAULT '{}' NOT NULL,
	`tables` text DEFAULT '[]' NOT NULL,
	`chunk_rows` integer NOT NULL,
	`slice_chunks` integer NOT NULL,
	`settle_seconds` integer NOT NULL,
	`source_deleted` integer DEFAULT false NOT NULL,
	`source_changed` text DEFAULT '[]' NOT NULL,
	`error` text,
	`created_by_user_id` text,
	`finished_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tenant_moves_tenant_created_idx` ON `tenant_moves` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `tenant_moves_one_active_idx` ON `tenant_moves` (`tenant_id`) WHERE state not in ('succeeded', 'failed');