CREATE TABLE `sweep_runs` (
	`cron` text NOT NULL,
	`sweep` text NOT NULL,
	`started_at` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`error` text,
	`last_ok_at` text,
	PRIMARY KEY(`cron`, `sweep`)
);
