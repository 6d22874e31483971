CREATE TABLE `shard_sizes` (
	`shard` integer PRIMARY KEY NOT NULL,
	`bytes` integer NOT NULL,
	`measured_at` text NOT NULL
);
