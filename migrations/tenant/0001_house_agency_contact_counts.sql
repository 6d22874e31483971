-- Part of the baseline (written by hand; drizzle-kit does not generate seeds or triggers).
-- The built-in agency that self-serve tenants belong to.
INSERT OR IGNORE INTO agencies (id, name, slug, is_active, created_at, updated_at)
VALUES ('agency_house', 'House', 'house', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
--> statement-breakpoint
-- contact_counts.total follows inserts and deletes on contacts, whoever writes them (API, import,
-- seed scripts), in the same statement; an upsert that updates an existing row fires neither.
CREATE TRIGGER `contacts_count_insert` AFTER INSERT ON `contacts`
BEGIN
  INSERT INTO contact_counts (tenant_id, total) VALUES (new.tenant_id, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET total = total + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_count_delete` AFTER DELETE ON `contacts`
BEGIN
  UPDATE contact_counts SET total = total - 1 WHERE tenant_id = old.tenant_id;
END;
