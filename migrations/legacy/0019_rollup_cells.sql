CREATE TABLE `rollup_cells` (
	`rollup` text NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`day` text NOT NULL,
	`version` integer NOT NULL,
	`built_version` integer NOT NULL,
	`built_at` text,
	PRIMARY KEY(`rollup`, `tenant_id`, `location_id`, `day`)
);
--> statement-breakpoint
CREATE INDEX `rollup_cells_dirty_idx` ON `rollup_cells` (`built_at`) WHERE version > built_version;--> statement-breakpoint
CREATE INDEX `rollup_cells_day_idx` ON `rollup_cells` (`day`);