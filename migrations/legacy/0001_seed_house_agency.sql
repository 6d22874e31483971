-- The built-in agency that self-serve tenants belong to.
INSERT OR IGNORE INTO agencies (id, name, slug, is_active, created_at, updated_at)
VALUES ('agency_house', 'House', 'house', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
