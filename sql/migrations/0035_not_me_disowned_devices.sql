-- Sign-in alerts after "not me" (docs/signin.md, "Sign-in alerts"): account.not_me_reported names the device of
-- the sign-in the user disowned (data.disowned_device_keys), and a sign-in reads the user's reports with their
-- history, so that sign-ins from that device count for nothing and the device is new again. Reports are rare:
-- this partial index holds them alone, and a user who never reported anything costs an empty probe of it per
-- monthly partition.
CREATE INDEX event_records_user_not_me ON authlog.event_records (user_id, occurred_at)
    WHERE type = 'account.not_me_reported' AND user_id IS NOT NULL;
