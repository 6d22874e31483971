CREATE TABLE `export_chunks` (
	`job_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`seq` integer NOT NULL,
	`body` text NOT NULL,
	`rows` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`job_id`, `seq`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `export_chunks_tenant_idx` ON `export_chunks` (`tenant_id`,`created_at`);