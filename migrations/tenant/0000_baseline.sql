CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`auth_provider` text DEFAULT 'password' NOT NULL,
	`avatar_url` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_tenant_created_idx` ON `users` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `agencies` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agencies_slug_unique` ON `agencies` (`slug`);--> statement-breakpoint
CREATE INDEX `agencies_created_idx` ON `agencies` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `brands` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`logo_url` text,
	`website_url` text,
	`corporate_address` text,
	`google_my_business_url` text,
	`google_place_id` text,
	`yelp_url` text,
	`yelp_business_id` text,
	`facebook_url` text,
	`facebook_page_id` text,
	`brand_voice` text,
	`brand_tone` text,
	`brand_description` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `brands_tenant_slug_uq` ON `brands` (`tenant_id`,`slug`);--> statement-breakpoint
CREATE INDEX `brands_tenant_created_idx` ON `brands` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `locations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`brand_id` text NOT NULL,
	`region_id` text,
	`name` text NOT NULL,
	`external_id` text,
	`address_line1` text,
	`address_line2` text,
	`city` text,
	`state` text,
	`postal_code` text,
	`country` text DEFAULT 'US' NOT NULL,
	`timezone` text DEFAULT 'UTC' NOT NULL,
	`locale` text DEFAULT 'en-US' NOT NULL,
	`phone` text,
	`email` text,
	`website_url` text,
	`google_my_business_url` text,
	`google_place_id` text,
	`yelp_url` text,
	`yelp_business_id` text,
	`facebook_url` text,
	`facebook_page_id` text,
	`latitude` real,
	`longitude` real,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`region_id`) REFERENCES `regions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `locations_tenant_created_idx` ON `locations` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `locations_brand_idx` ON `locations` (`brand_id`);--> statement-breakpoint
CREATE INDEX `locations_region_idx` ON `locations` (`region_id`);--> statement-breakpoint
CREATE INDEX `locations_tenant_geo_idx` ON `locations` (`tenant_id`,`latitude`,`longitude`);--> statement-breakpoint
CREATE UNIQUE INDEX `locations_tenant_external_uq` ON `locations` (`tenant_id`,`external_id`) WHERE external_id is not null;--> statement-breakpoint
CREATE TABLE `regions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`code` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `regions_tenant_name_uq` ON `regions` (`tenant_id`,`name`);--> statement-breakpoint
CREATE INDEX `regions_tenant_created_idx` ON `regions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`plan` text DEFAULT 'starter' NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`paused_at` text,
	`paused_reason` text,
	`shard` integer DEFAULT 0 NOT NULL,
	`moving_since` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_slug_unique` ON `tenants` (`slug`);--> statement-breakpoint
CREATE INDEX `tenants_agency_created_idx` ON `tenants` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tenants_created_idx` ON `tenants` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`actor_id` text,
	`actor_type` text NOT NULL,
	`action` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`previous_state` text,
	`next_state` text,
	`metadata` text,
	`ip_address` text,
	`user_agent` text,
	`occurred_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_tenant_occurred_idx` ON `audit_events` (`tenant_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_resource_idx` ON `audit_events` (`resource_type`,`resource_id`);--> statement-breakpoint
CREATE INDEX `audit_occurred_idx` ON `audit_events` (`occurred_at`,`id`);--> statement-breakpoint
CREATE TABLE `domain_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`occurred_at` text NOT NULL,
	`dispatched_at` text
);
--> statement-breakpoint
CREATE INDEX `domain_events_pending_idx` ON `domain_events` (`dispatched_at`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `domain_events_tenant_idx` ON `domain_events` (`tenant_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE TABLE `processed_events` (
	`event_id` text NOT NULL,
	`handler` text NOT NULL,
	`processed_at` text NOT NULL,
	PRIMARY KEY(`event_id`, `handler`)
);
--> statement-breakpoint
CREATE INDEX `processed_events_at_idx` ON `processed_events` (`processed_at`);--> statement-breakpoint
CREATE TABLE `outbox_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`channel` text NOT NULL,
	`to` text NOT NULL,
	`subject` text,
	`html` text,
	`text` text,
	`headers` text DEFAULT '{}' NOT NULL,
	`solicitation_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_created_idx` ON `outbox_messages` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `outbox_tenant_created_idx` ON `outbox_messages` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `outbox_solicitation_idx` ON `outbox_messages` (`solicitation_id`);--> statement-breakpoint
CREATE TABLE `location_variables` (
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`location_id`, `key`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `location_variables_tenant_key_idx` ON `location_variables` (`tenant_id`,`key`);--> statement-breakpoint
CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`root_id` text NOT NULL,
	`name` text NOT NULL,
	`channel` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`subject` text,
	`body_html` text,
	`body_text` text,
	`locale` text DEFAULT 'en-US' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`tokens` text DEFAULT '[]' NOT NULL,
	`created_by_user_id` text NOT NULL,
	`approved_by_user_id` text,
	`approved_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `templates_tenant_created_idx` ON `templates` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `templates_root_version_uq` ON `templates` (`root_id`,`version`);--> statement-breakpoint
CREATE UNIQUE INDEX `templates_root_approved_uq` ON `templates` (`root_id`) WHERE status = 'approved';--> statement-breakpoint
CREATE UNIQUE INDEX `templates_root_draft_uq` ON `templates` (`root_id`) WHERE status = 'draft';--> statement-breakpoint
CREATE TABLE `campaign_sequences` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_sequences_campaign_id_unique` ON `campaign_sequences` (`campaign_id`);--> statement-breakpoint
CREATE INDEX `sequences_tenant_idx` ON `campaign_sequences` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `campaign_template_bindings` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`template_id` text NOT NULL,
	`channel` text NOT NULL,
	`locale` text DEFAULT 'en-US' NOT NULL,
	`variant_key` text DEFAULT 'control' NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`is_control` integer DEFAULT true NOT NULL,
	`active_from` text,
	`active_to` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bindings_campaign_idx` ON `campaign_template_bindings` (`campaign_id`,`channel`,`priority`);--> statement-breakpoint
CREATE INDEX `bindings_template_idx` ON `campaign_template_bindings` (`template_id`);--> statement-breakpoint
CREATE INDEX `bindings_tenant_idx` ON `campaign_template_bindings` (`tenant_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `bindings_campaign_template_uq` ON `campaign_template_bindings` (`campaign_id`,`template_id`,`channel`,`locale`,`variant_key`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text,
	`brand_id` text,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`channels` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`starts_at` text,
	`ends_at` text,
	`metadata` text DEFAULT '{}' NOT NULL,
	`review_destination` text DEFAULT 'auto' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaigns_tenant_created_idx` ON `campaigns` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `campaigns_location_idx` ON `campaigns` (`location_id`);--> statement-breakpoint
CREATE INDEX `campaigns_brand_idx` ON `campaigns` (`brand_id`);--> statement-breakpoint
CREATE TABLE `sequence_steps` (
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`step_index` integer NOT NULL,
	`channel` text NOT NULL,
	`delay_days` integer NOT NULL,
	`template_id` text,
	PRIMARY KEY(`campaign_id`, `step_index`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sequence_steps_template_idx` ON `sequence_steps` (`template_id`);--> statement-breakpoint
CREATE INDEX `sequence_steps_tenant_idx` ON `sequence_steps` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text,
	`location_id` text,
	`name` text NOT NULL,
	`hypothesis` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`variants` text NOT NULL,
	`winner_variant_id` text,
	`started_at` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `experiments_tenant_created_idx` ON `experiments` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `experiments_campaign_idx` ON `experiments` (`campaign_id`);--> statement-breakpoint
CREATE INDEX `experiments_location_idx` ON `experiments` (`location_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `experiments_campaign_running_uq` ON `experiments` (`campaign_id`) WHERE status = 'running';--> statement-breakpoint
CREATE TABLE `review_responses` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`review_id` text NOT NULL,
	`text` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`assigned_to_user_id` text,
	`rejection_reason` text,
	`ai_generated` integer DEFAULT false NOT NULL,
	`created_by_user_id` text,
	`decided_by_user_id` text,
	`submitted_at` text,
	`decided_at` text,
	`published_at` text,
	`published_via` text,
	`published_by_user_id` text,
	`published_url` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `review_responses_review_idx` ON `review_responses` (`review_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `review_responses_tenant_status_idx` ON `review_responses` (`tenant_id`,`status`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `review_responses_assignee_idx` ON `review_responses` (`assigned_to_user_id`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`solicitation_id` text,
	`site_type` text NOT NULL,
	`external_review_id` text,
	`rating` real,
	`rating_max` real,
	`text` text,
	`author_name` text,
	`author_external_id` text,
	`language` text,
	`sentiment` text,
	`sentiment_score` real,
	`topics` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'new' NOT NULL,
	`is_first_party` integer DEFAULT false NOT NULL,
	`is_public` integer DEFAULT true NOT NULL,
	`external_url` text,
	`external_reply_text` text,
	`published_at` text,
	`occurred_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_tenant_site_external_uq` ON `reviews` (`tenant_id`,`site_type`,`external_review_id`) WHERE external_review_id is not null;--> statement-breakpoint
CREATE INDEX `reviews_tenant_occurred_idx` ON `reviews` (`tenant_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_location_occurred_idx` ON `reviews` (`tenant_id`,`location_id`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_site_occurred_idx` ON `reviews` (`tenant_id`,`site_type`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_sentiment_occurred_idx` ON `reviews` (`tenant_id`,`sentiment`,`occurred_at`,`id`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_rating_idx` ON `reviews` (`tenant_id`,`rating`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_status_created_idx` ON `reviews` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `reviews_tenant_location_created_idx` ON `reviews` (`tenant_id`,`location_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `reviews_location_idx` ON `reviews` (`location_id`);--> statement-breakpoint
CREATE INDEX `reviews_solicitation_idx` ON `reviews` (`solicitation_id`);--> statement-breakpoint
CREATE TABLE `sla_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`filter` text DEFAULT '{}' NOT NULL,
	`response_window_hours` integer NOT NULL,
	`escalate_after_hours` integer NOT NULL,
	`escalate_to_role` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sla_rules_tenant_created_idx` ON `sla_rules` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `sla_rules_active_idx` ON `sla_rules` (`is_active`,`tenant_id`);--> statement-breakpoint
CREATE TABLE `inbox_items` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`review_id` text,
	`feedback_id` text,
	`location_id` text,
	`status` text DEFAULT 'new' NOT NULL,
	`assigned_to_user_id` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`escalated_at` text,
	`escalation_reason` text,
	`escalated_by` text,
	`rating` real,
	`excerpt` text,
	`sentiment` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_created_idx` ON `inbox_items` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_review_idx` ON `inbox_items` (`review_id`);--> statement-breakpoint
CREATE INDEX `inbox_items_feedback_idx` ON `inbox_items` (`feedback_id`);--> statement-breakpoint
CREATE INDEX `inbox_items_location_idx` ON `inbox_items` (`location_id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_status_created_idx` ON `inbox_items` (`tenant_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_type_created_idx` ON `inbox_items` (`tenant_id`,`type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_location_created_idx` ON `inbox_items` (`tenant_id`,`location_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_tenant_assignee_created_idx` ON `inbox_items` (`tenant_id`,`assigned_to_user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `inbox_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`inbox_item_id` text NOT NULL,
	`author_id` text,
	`author_type` text NOT NULL,
	`note` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`inbox_item_id`) REFERENCES `inbox_items`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `inbox_notes_item_created_idx` ON `inbox_notes` (`inbox_item_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_notes_tenant_idx` ON `inbox_notes` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `integrations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text,
	`connector_type` text NOT NULL,
	`name` text NOT NULL,
	`is_enabled` integer DEFAULT true NOT NULL,
	`is_sandbox` integer DEFAULT false NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`credentials_encrypted` text,
	`sync_requested_at` text,
	`last_sync_at` text,
	`last_sync_status` text,
	`last_sync_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `integrations_tenant_created_idx` ON `integrations` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `integrations_location_idx` ON `integrations` (`location_id`);--> statement-breakpoint
CREATE INDEX `integrations_enabled_idx` ON `integrations` (`is_enabled`,`connector_type`);--> statement-breakpoint
CREATE TABLE `consent_records` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`seq` integer NOT NULL,
	`source` text NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `consent_contact_channel_seq_uq` ON `consent_records` (`contact_id`,`channel`,`seq`);--> statement-breakpoint
CREATE INDEX `consent_tenant_contact_idx` ON `consent_records` (`tenant_id`,`contact_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_counts` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`email` text,
	`phone` text,
	`first_name` text,
	`last_name` text,
	`locale` text,
	`timezone` text,
	`is_suppressed` integer DEFAULT false NOT NULL,
	`suppressed_at` text,
	`suppression_reason` text,
	`external_ids` text DEFAULT '{}' NOT NULL,
	`source_metadata` text DEFAULT '{}' NOT NULL,
	`name_key` text,
	`name_key_reversed` text,
	`last_activity_at` text,
	`anonymized_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_tenant_email_uq` ON `contacts` (`tenant_id`,`email`) WHERE email is not null;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_tenant_phone_uq` ON `contacts` (`tenant_id`,`phone`) WHERE phone is not null;--> statement-breakpoint
CREATE INDEX `contacts_tenant_created_idx` ON `contacts` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_tenant_name_idx` ON `contacts` (`tenant_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `contacts_tenant_name_rev_idx` ON `contacts` (`tenant_id`,`name_key_reversed`);--> statement-breakpoint
CREATE INDEX `contacts_tenant_activity_idx` ON `contacts` (`tenant_id`,`last_activity_at`);--> statement-breakpoint
CREATE TABLE `compliance_configs` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`healthcare_safe_mode` integer NOT NULL,
	`retention_days` integer NOT NULL,
	`require_double_opt_in` integer NOT NULL,
	`allow_data_export` integer NOT NULL,
	`allow_data_deletion` integer NOT NULL,
	`quiet_hours_start` text NOT NULL,
	`quiet_hours_end` text NOT NULL,
	`frequency_cap_daily` integer NOT NULL,
	`frequency_cap_weekly` integer NOT NULL,
	`require_email_consent` integer NOT NULL,
	`require_sms_opt_in` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
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
--> statement-breakpoint
CREATE TABLE `frequency_cap_guard` (
	`contact_id` text NOT NULL,
	CONSTRAINT "frequency_cap_exceeded" CHECK(0)
);
--> statement-breakpoint
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
CREATE INDEX `solicitations_tenant_location_created_idx` ON `solicitations` (`tenant_id`,`location_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `solicitations_provider_message_idx` ON `solicitations` (`provider_message_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `solicitations_short_link_uq` ON `solicitations` (`short_link_token`);--> statement-breakpoint
CREATE INDEX `solicitations_experiment_variant_idx` ON `solicitations` (`experiment_id`,`variant_id`);--> statement-breakpoint
CREATE INDEX `solicitations_status_created_idx` ON `solicitations` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `analytics_funnel_daily` (
	`tenant_id` text NOT NULL,
	`day` text NOT NULL,
	`location_id` text NOT NULL,
	`channel` text NOT NULL,
	`campaign_id` text NOT NULL,
	`template_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`requested` integer NOT NULL,
	`sent` integer NOT NULL,
	`delivered` integer NOT NULL,
	`clicked` integer NOT NULL,
	`converted` integer NOT NULL,
	`blocked` integer NOT NULL,
	`blocked_by_cap` integer NOT NULL,
	`failed` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `day`, `location_id`, `channel`, `campaign_id`, `template_id`, `variant_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_funnel_location_day_idx` ON `analytics_funnel_daily` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE INDEX `analytics_funnel_campaign_day_idx` ON `analytics_funnel_daily` (`tenant_id`,`campaign_id`,`day`);--> statement-breakpoint
CREATE TABLE `analytics_response_daily` (
	`tenant_id` text NOT NULL,
	`day` text NOT NULL,
	`location_id` text NOT NULL,
	`reviews` integer NOT NULL,
	`responded` integer NOT NULL,
	`response_minutes` text NOT NULL,
	`sla_covered` integer NOT NULL,
	`sla_met` integer NOT NULL,
	`sla_missed` integer NOT NULL,
	`sla_open_due` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `day`, `location_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_response_location_day_idx` ON `analytics_response_daily` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE TABLE `analytics_review_daily` (
	`tenant_id` text NOT NULL,
	`day` text NOT NULL,
	`location_id` text NOT NULL,
	`site_type` text NOT NULL,
	`reviews` integer NOT NULL,
	`rated` integer NOT NULL,
	`rating_sum` real NOT NULL,
	`rating_1` integer NOT NULL,
	`rating_2` integer NOT NULL,
	`rating_3` integer NOT NULL,
	`rating_4` integer NOT NULL,
	`rating_5` integer NOT NULL,
	`positive` integer NOT NULL,
	`neutral` integer NOT NULL,
	`negative` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `day`, `location_id`, `site_type`)
);
--> statement-breakpoint
CREATE INDEX `analytics_review_location_day_idx` ON `analytics_review_daily` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE TABLE `competitors` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`name` text NOT NULL,
	`website_url` text,
	`google_place_id` text,
	`yelp_business_id` text,
	`facebook_page_id` text,
	`tripadvisor_id` text,
	`trustpilot_business_unit_id` text,
	`average_rating` real,
	`review_count` integer,
	`by_site` text DEFAULT '{}' NOT NULL,
	`last_refreshed_at` text,
	`last_refresh_status` text,
	`last_refresh_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `competitors_tenant_created_idx` ON `competitors` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `competitors_location_idx` ON `competitors` (`location_id`);--> statement-breakpoint
CREATE INDEX `competitors_refresh_idx` ON `competitors` (`last_refreshed_at`);--> statement-breakpoint
CREATE TABLE `recommendation_runs` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`last_run_day` text NOT NULL,
	`last_run_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `recommendation_runs_day_idx` ON `recommendation_runs` (`last_run_day`);--> statement-breakpoint
CREATE TABLE `recommendations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`scope_type` text NOT NULL,
	`scope_id` text NOT NULL,
	`type` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`priority` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`confidence` real NOT NULL,
	`risk_level` text NOT NULL,
	`action_payload` text DEFAULT '{}' NOT NULL,
	`evidence` text DEFAULT '{}' NOT NULL,
	`dedupe_key` text NOT NULL,
	`snoozed_until` text,
	`decided_by_user_id` text,
	`decided_at` text,
	`applied_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `recommendations_tenant_created_idx` ON `recommendations` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `recommendations_open_uq` ON `recommendations` (`tenant_id`,`dedupe_key`) WHERE status in ('pending', 'snoozed', 'accepted');--> statement-breakpoint
CREATE INDEX `recommendations_key_idx` ON `recommendations` (`tenant_id`,`dedupe_key`,`updated_at`);--> statement-breakpoint
CREATE INDEX `recommendations_snoozed_idx` ON `recommendations` (`status`,`snoozed_until`);--> statement-breakpoint
CREATE TABLE `reputation_scores` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`day` text NOT NULL,
	`score` integer NOT NULL,
	`rating` real NOT NULL,
	`velocity` real NOT NULL,
	`sentiment` real NOT NULL,
	`response_health` real NOT NULL,
	`platform_diversity` real NOT NULL,
	`inputs` text DEFAULT '{}' NOT NULL,
	`computed_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reputation_scores_location_day_uq` ON `reputation_scores` (`tenant_id`,`location_id`,`day`);--> statement-breakpoint
CREATE INDEX `reputation_scores_location_idx` ON `reputation_scores` (`location_id`,`day`);--> statement-breakpoint
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
CREATE INDEX `rollup_cells_day_idx` ON `rollup_cells` (`day`);--> statement-breakpoint
CREATE TABLE `campaign_surveys` (
	`campaign_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`survey_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`survey_id`) REFERENCES `surveys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaign_surveys_survey_idx` ON `campaign_surveys` (`survey_id`);--> statement-breakpoint
CREATE INDEX `campaign_surveys_tenant_idx` ON `campaign_surveys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `feedback_submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`solicitation_id` text NOT NULL,
	`contact_id` text,
	`campaign_id` text,
	`survey_id` text,
	`type` text,
	`rating` integer,
	`nps_score` integer,
	`survey_type` text,
	`score` integer,
	`text` text,
	`follow_up_text` text,
	`callback_requested` integer DEFAULT false NOT NULL,
	`survey_responses` text DEFAULT '{}' NOT NULL,
	`sentiment` text,
	`sentiment_score` real,
	`topics` text DEFAULT '[]' NOT NULL,
	`landed_at` text,
	`submitted_at` text NOT NULL,
	`anonymized_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feedback_solicitation_uq` ON `feedback_submissions` (`solicitation_id`);--> statement-breakpoint
CREATE INDEX `feedback_tenant_created_idx` ON `feedback_submissions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `feedback_survey_submitted_idx` ON `feedback_submissions` (`survey_id`,`submitted_at`,`id`);--> statement-breakpoint
CREATE INDEX `feedback_contact_idx` ON `feedback_submissions` (`contact_id`);--> statement-breakpoint
CREATE INDEX `feedback_location_idx` ON `feedback_submissions` (`location_id`);--> statement-breakpoint
CREATE INDEX `feedback_retention_idx` ON `feedback_submissions` (`tenant_id`,`anonymized_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `feedback_views` (
	`solicitation_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`survey_id` text,
	`views` integer DEFAULT 1 NOT NULL,
	`first_viewed_at` text NOT NULL,
	`last_viewed_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `feedback_views_survey_idx` ON `feedback_views` (`survey_id`);--> statement-breakpoint
CREATE INDEX `feedback_views_tenant_idx` ON `feedback_views` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `surveys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`description` text,
	`questions` text DEFAULT '[]' NOT NULL,
	`is_template` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`launched_at` text,
	`closed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `surveys_tenant_created_idx` ON `surveys` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`message_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`redelivery_of` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`response_status` integer,
	`response_body` text,
	`latency_ms` integer,
	`error` text,
	`last_attempt_at` text,
	`next_attempt_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_created_idx` ON `webhook_deliveries` (`tenant_id`,`subscription_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_idx` ON `webhook_deliveries` (`subscription_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_uq` ON `webhook_deliveries` (`subscription_id`,`event_id`) WHERE redelivery_of is null;--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`events` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`secret_encrypted` text NOT NULL,
	`failing_since` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`disabled_at` text,
	`disabled_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_tenant_created_idx` ON `webhook_subscriptions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_tenant_active_idx` ON `webhook_subscriptions` (`tenant_id`,`is_active`);--> statement-breakpoint
CREATE TABLE `automation_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`trigger_event_type` text NOT NULL,
	`location_id` text,
	`brand_id` text,
	`is_active` integer DEFAULT true NOT NULL,
	`conditions` text NOT NULL,
	`actions` text NOT NULL,
	`signing_secret_encrypted` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `automation_rules_tenant_created_idx` ON `automation_rules` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `automation_rules_trigger_idx` ON `automation_rules` (`tenant_id`,`trigger_event_type`,`is_active`);--> statement-breakpoint
CREATE INDEX `automation_rules_location_idx` ON `automation_rules` (`location_id`);--> statement-breakpoint
CREATE INDEX `automation_rules_brand_idx` ON `automation_rules` (`brand_id`);--> statement-breakpoint
CREATE TABLE `automation_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`outcome` text NOT NULL,
	`actions` text NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`rule_id`) REFERENCES `automation_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `automation_runs_rule_created_idx` ON `automation_runs` (`tenant_id`,`rule_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `automation_runs_rule_idx` ON `automation_runs` (`rule_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `automation_runs_rule_event_uq` ON `automation_runs` (`rule_id`,`event_id`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`subject_id` text,
	`counts` text DEFAULT '{}' NOT NULL,
	`cursor` text,
	`error` text,
	`created_by_user_id` text,
	`started_at` text,
	`finished_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `jobs_tenant_created_idx` ON `jobs` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_subject_idx` ON `jobs` (`subject_id`);--> statement-breakpoint
CREATE TABLE `link_clicks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`solicitation_id` text NOT NULL,
	`source` text NOT NULL,
	`clicked_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `link_clicks_solicitation_idx` ON `link_clicks` (`solicitation_id`,`clicked_at`);--> statement-breakpoint
CREATE INDEX `link_clicks_tenant_idx` ON `link_clicks` (`tenant_id`,`clicked_at`);--> statement-breakpoint
CREATE TABLE `sequence_enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`location_id` text NOT NULL,
	`origin_solicitation_id` text NOT NULL,
	`status` text NOT NULL,
	`stop_reason` text,
	`last_step_index` integer NOT NULL,
	`next_step_index` integer,
	`due_at` text,
	`started_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sequence_enrollments_origin_solicitation_id_unique` ON `sequence_enrollments` (`origin_solicitation_id`);--> statement-breakpoint
CREATE INDEX `sequence_enrollments_due_idx` ON `sequence_enrollments` (`due_at`,`id`) WHERE status = 'active';--> statement-breakpoint
CREATE INDEX `sequence_enrollments_contact_idx` ON `sequence_enrollments` (`tenant_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `sequence_enrollments_campaign_idx` ON `sequence_enrollments` (`campaign_id`);--> statement-breakpoint
CREATE TABLE `sequence_step_runs` (
	`enrollment_id` text NOT NULL,
	`step_index` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`solicitation_id` text,
	`claimed_at` text NOT NULL,
	PRIMARY KEY(`enrollment_id`, `step_index`)
);
--> statement-breakpoint
CREATE INDEX `sequence_step_runs_solicitation_idx` ON `sequence_step_runs` (`solicitation_id`);--> statement-breakpoint
CREATE TABLE `assistant_conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`owner_ref` text NOT NULL,
	`title` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `assistant_conversations_owner_updated_idx` ON `assistant_conversations` (`tenant_id`,`owner_ref`,`updated_at`,`id`);--> statement-breakpoint
CREATE TABLE `assistant_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`role` text NOT NULL,
	`content` text NOT NULL,
	`citations` text DEFAULT '[]' NOT NULL,
	`engine` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`conversation_id`) REFERENCES `assistant_conversations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `assistant_messages_conversation_idx` ON `assistant_messages` (`conversation_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `assistant_messages_tenant_idx` ON `assistant_messages` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `review_link_clicks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`review_link_id` text NOT NULL,
	`site` text NOT NULL,
	`source` text NOT NULL,
	`clicked_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `review_link_clicks_link_idx` ON `review_link_clicks` (`tenant_id`,`review_link_id`,`clicked_at`);--> statement-breakpoint
CREATE TABLE `review_links` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`weights` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_links_slug_uq` ON `review_links` (`slug`);--> statement-breakpoint
CREATE INDEX `review_links_tenant_created_idx` ON `review_links` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `review_links_location_idx` ON `review_links` (`location_id`);--> statement-breakpoint
CREATE TABLE `widgets` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`location_id` text,
	`public_key` text NOT NULL,
	`name` text NOT NULL,
	`min_rating` integer DEFAULT 1 NOT NULL,
	`sites` text DEFAULT '[]' NOT NULL,
	`count` integer DEFAULT 5 NOT NULL,
	`order` text DEFAULT 'newest' NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `widgets_public_key_uq` ON `widgets` (`public_key`);--> statement-breakpoint
CREATE INDEX `widgets_tenant_created_idx` ON `widgets` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `widgets_location_idx` ON `widgets` (`location_id`);--> statement-breakpoint
CREATE TABLE `auto_replies` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`review_id` text NOT NULL,
	`response_id` text,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`publish_at` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`cancel_reason` text,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`response_id`) REFERENCES `review_responses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auto_replies_tenant_review_uq` ON `auto_replies` (`tenant_id`,`review_id`);--> statement-breakpoint
CREATE INDEX `auto_replies_tenant_created_idx` ON `auto_replies` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `auto_replies_due_idx` ON `auto_replies` (`status`,`publish_at`);--> statement-breakpoint
CREATE INDEX `auto_replies_response_idx` ON `auto_replies` (`response_id`);--> statement-breakpoint
CREATE INDEX `auto_replies_rule_idx` ON `auto_replies` (`rule_id`);--> statement-breakpoint
CREATE TABLE `auto_reply_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`location_id` text,
	`site_type` text,
	`ratings` text NOT NULL,
	`allow_low_ratings` integer DEFAULT false NOT NULL,
	`text_condition` text DEFAULT 'any' NOT NULL,
	`keywords` text DEFAULT '[]' NOT NULL,
	`source` text NOT NULL,
	`template` text,
	`mode` text DEFAULT 'approval' NOT NULL,
	`delay_minutes` integer,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `auto_reply_rules_tenant_created_idx` ON `auto_reply_rules` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `auto_reply_rules_tenant_active_idx` ON `auto_reply_rules` (`tenant_id`,`is_active`);--> statement-breakpoint
CREATE INDEX `auto_reply_rules_location_idx` ON `auto_reply_rules` (`location_id`);--> statement-breakpoint
CREATE TABLE `auto_reply_settings` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`auto_publish_enabled` integer DEFAULT false NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `alert_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`key` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`period_start` text,
	`period_end` text,
	`summary` text DEFAULT '{}' NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`sent_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscription_id`) REFERENCES `alert_subscriptions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_sends_subscription_key_uq` ON `alert_sends` (`subscription_id`,`key`);--> statement-breakpoint
CREATE INDEX `alert_sends_tenant_subscription_created_idx` ON `alert_sends` (`tenant_id`,`subscription_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `alert_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`location_id` text,
	`instant_email` integer DEFAULT true NOT NULL,
	`webhook_id` text,
	`max_rating` integer,
	`site_types` text DEFAULT '[]' NOT NULL,
	`keywords` text DEFAULT '[]' NOT NULL,
	`digest_frequency` text DEFAULT 'none' NOT NULL,
	`digest_hour` integer DEFAULT 8 NOT NULL,
	`digest_weekday` integer DEFAULT 1 NOT NULL,
	`time_zone` text NOT NULL,
	`next_digest_at` text,
	`instant_unsubscribed_at` text,
	`digest_unsubscribed_at` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `alert_subscriptions_tenant_created_idx` ON `alert_subscriptions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_tenant_active_idx` ON `alert_subscriptions` (`tenant_id`,`is_active`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_user_idx` ON `alert_subscriptions` (`user_id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_location_idx` ON `alert_subscriptions` (`location_id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_webhook_idx` ON `alert_subscriptions` (`webhook_id`);--> statement-breakpoint
CREATE INDEX `alert_subscriptions_due_idx` ON `alert_subscriptions` (`next_digest_at`) WHERE next_digest_at is not null;