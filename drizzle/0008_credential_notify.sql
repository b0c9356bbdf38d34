-- API processes keep credentials in memory (src/auth/credential-cache.ts) and drop one at once
-- when it changes or goes: every update or delete notifies with its token, a truncate with ''.
CREATE OR REPLACE FUNCTION "fulfil_credential_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('fulfil_credentials', '');
  ELSE
    PERFORM pg_notify('fulfil_credentials', OLD.token);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "credentials_notify" AFTER UPDATE OR DELETE ON "credentials" FOR EACH ROW EXECUTE FUNCTION "fulfil_credential_notify"();
--> statement-breakpoint
CREATE TRIGGER "credentials_notify_truncate" AFTER TRUNCATE ON "credentials" FOR EACH STATEMENT EXECUTE FUNCTION "fulfil_credential_notify"();
