-- meta set: each event also as the feed reads it, written once when its load is published
-- (src/db/change-feed.ts, EVENT_DOC): a page of the feed is then its events' texts joined, not
-- each event's columns made into JSON again at every read. Events published before this
-- migration have none, and are made at read time from their columns (the same expression).

ALTER TABLE "change_event" ADD COLUMN "doc" TEXT;
