CREATE TABLE `frequency_cap_guard` (
	`contact_id` text NOT NULL,
	CONSTRAINT "frequency_cap_exceeded" CHECK(0)
);
