-- meta set: feed cursors that count no account's own events (docs/decisions.md, "Change feed",
-- "Cursors"). An event's cursor is its place among the events a reader sees: `pos` counts the
-- events every account sees (public events: 1, 2, …), and an account's own events (segment_entered,
-- segment_left) take the place of the public event before them with `seq` 1, 2, … per account at
-- that place, shown as `<pos>.<seq>`. The `id` stays the feed's internal order (never shown).
-- Events kept from before this migration keep their id as their cursor (pos = id, seq = 0), and
-- a bare cursor up to change_feed.legacy_through is read as such an id, so cursors clients hold
-- go on meaning what they meant; public positions continue after it.

ALTER TABLE "change_event" ADD COLUMN "pos" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "change_event" ADD COLUMN "seq" INTEGER NOT NULL DEFAULT 0;
UPDATE "change_event" SET "pos" = "id";
CREATE INDEX "change_event_pos_id_idx" ON "change_event" ("pos", "id");

ALTER TABLE "change_feed" ADD COLUMN "last_pos" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "change_feed" ADD COLUMN "legacy_through" INTEGER NOT NULL DEFAULT 0;
UPDATE "change_feed" SET "last_pos" = "last_id", "legacy_through" = "last_id";

-- A webhook's and a delivery's cursor as its account's readers see it (null: kept before this
-- migration, when the cursor was the id itself).
ALTER TABLE "webhook" ADD COLUMN "cursor_text" TEXT;
ALTER TABLE "webhook_delivery" ADD COLUMN "cursor_text" TEXT;
