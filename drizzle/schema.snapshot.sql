CREATE FUNCTION public.fulfil_clock() RETURNS timestamp with time zone
    LANGUAGE sql STABLE
    AS $$
  select nullif(current_setting('fulfil.clock', true), '')::timestamptz
$$;

CREATE FUNCTION public.fulfil_credential_notify() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('fulfil_credentials', '');
  ELSE
    PERFORM pg_notify('fulfil_credentials', OLD.token);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION public.fulfil_now() RETURNS timestamp with time zone
    LANGUAGE sql STABLE
    AS $$
  select coalesce(fulfil_clock(), now())
$$;

CREATE FUNCTION public.fulfil_orders_touch() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  -- a statement that sets updated_at itself (a backfill, an import) keeps its value
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END $$;

CREATE TABLE public.addresses (
    id bigint NOT NULL,
    label text,
    name text NOT NULL,
    street_address text NOT NULL,
    extended_address text,
    locality text NOT NULL,
    region text NOT NULL,
    postal_code text NOT NULL,
    country_code text NOT NULL
);

CREATE SEQUENCE public.addresses_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.addresses_id_seq OWNED BY public.addresses.id;

CREATE TABLE public.brokerages (
    id bigint NOT NULL,
    name text NOT NULL,
    livemode boolean DEFAULT true NOT NULL,
    sandbox_of bigint
);

CREATE TABLE public.carrier_events (
    provider text NOT NULL,
    event_id text NOT NULL,
    tracking_code text,
    outcome text NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    scans jsonb
);

CREATE TABLE public.commands (
    id text NOT NULL,
    name text NOT NULL,
    brokerage_id bigint NOT NULL,
    idempotency_key text,
    request_hash text NOT NULL,
    payload jsonb NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    result_status integer,
    result_body json,
    attempts integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    actor jsonb
)
WITH (fillfactor='50');

CREATE TABLE public.credentials (
    token text NOT NULL,
    kind text NOT NULL,
    brokerage_id bigint NOT NULL,
    user_id bigint,
    secret_ciphertext text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    mode text DEFAULT 'live'::text NOT NULL,
    CONSTRAINT credentials_kind_user CHECK (((kind = 'user'::text) = (user_id IS NOT NULL))),
    CONSTRAINT credentials_mode CHECK ((mode = ANY (ARRAY['live'::text, 'test'::text])))
);

CREATE TABLE public.delivery_issue_responses (
    id bigint NOT NULL,
    issue_id bigint NOT NULL,
    order_id bigint NOT NULL,
    shipment_id bigint,
    kind text NOT NULL,
    set_id bigint,
    tickets jsonb,
    transfer_source text,
    x_mobile_link text,
    notes text,
    brokerage_id bigint NOT NULL,
    user_id bigint,
    command_id text NOT NULL,
    at timestamp with time zone NOT NULL,
    CONSTRAINT delivery_issue_responses_kind CHECK ((kind = ANY (ARRAY['reissue'::text, 'response'::text])))
);

CREATE SEQUENCE public.delivery_issue_responses_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.delivery_issue_responses_id_seq OWNED BY public.delivery_issue_responses.id;

CREATE TABLE public.delivery_issues (
    id bigint NOT NULL,
    order_id bigint NOT NULL,
    shipment_id bigint,
    state text NOT NULL,
    snapshot jsonb NOT NULL,
    reason text NOT NULL,
    seats jsonb DEFAULT '[]'::jsonb NOT NULL,
    notes text,
    opened_by_brokerage_id bigint NOT NULL,
    opened_by_user_id bigint,
    command_id text NOT NULL,
    opened_at timestamp with time zone NOT NULL,
    respond_by timestamp with time zone NOT NULL,
    responded_at timestamp with time zone,
    escalated_at timestamp with time zone,
    escalated_by text,
    resolved_at timestamp with time zone,
    closed_at timestamp with time zone,
    outcome text,
    close_notes text,
    resolution_notes text,
    escalation_notes text,
    CONSTRAINT delivery_issues_outcome CHECK (((state = 'closed'::text) = (outcome IS NOT NULL)))
);

CREATE SEQUENCE public.delivery_issues_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.delivery_issues_id_seq OWNED BY public.delivery_issues.id;

CREATE TABLE public.email_addresses (
    id bigint NOT NULL,
    address text NOT NULL,
    label text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.email_addresses_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.email_addresses_id_seq OWNED BY public.email_addresses.id;

CREATE TABLE public.event_feed (
    event_row_id bigint NOT NULL,
    seller_brokerage_id bigint NOT NULL,
    buyer_brokerage_id bigint NOT NULL,
    "position" bigint
);

CREATE TABLE public.event_feed_head (
    id integer DEFAULT 1 NOT NULL,
    "position" bigint DEFAULT 0 NOT NULL
);

CREATE TABLE public.events (
    id bigint NOT NULL,
    name text NOT NULL,
    occurs_at timestamp with time zone
);

CREATE TABLE public.file_downloads (
    id bigint NOT NULL,
    file_id bigint NOT NULL,
    shipment_id bigint NOT NULL,
    order_id bigint NOT NULL,
    brokerage_id bigint NOT NULL,
    user_id bigint,
    role text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.file_downloads_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.file_downloads_id_seq OWNED BY public.file_downloads.id;

CREATE TABLE public.file_links (
    token_sha256 text NOT NULL,
    file_id bigint NOT NULL,
    brokerage_id bigint NOT NULL,
    user_id bigint,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    used_by text
);

CREATE TABLE public.holds (
    id bigint NOT NULL,
    order_id bigint NOT NULL,
    reason text NOT NULL,
    notes text,
    handle text,
    seats jsonb DEFAULT '[]'::jsonb NOT NULL,
    placed_by_party text NOT NULL,
    placed_by_brokerage_id bigint,
    placed_by_user_id bigint,
    placed_by_operator text,
    placed_at timestamp with time zone NOT NULL,
    release_at timestamp with time zone,
    released_at timestamp with time zone,
    released_by_party text,
    released_by_brokerage_id bigint,
    released_by_user_id bigint,
    released_by_operator text,
    release_why text,
    answer_notes text,
    answered_at timestamp with time zone,
    deadline_extended_ms bigint DEFAULT 0 NOT NULL,
    command_id text
);

CREATE SEQUENCE public.holds_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.holds_id_seq OWNED BY public.holds.id;

CREATE TABLE public.label_purchases (
    shipment_id bigint NOT NULL,
    state text DEFAULT 'buying'::text NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL,
    provider text,
    label_id text,
    tracking_code text,
    tracker_id text,
    service text,
    reason text,
    rate text,
    estimated_delivery_at timestamp with time zone,
    sha256 text,
    note text
);

CREATE TABLE public.offices (
    id bigint NOT NULL,
    brokerage_id bigint NOT NULL,
    name text NOT NULL,
    sandbox_of bigint
);

CREATE TABLE public.orders (
    id bigint NOT NULL,
    oid text NOT NULL,
    seller_office_id bigint NOT NULL,
    buyer_brokerage_id bigint NOT NULL,
    delivery text NOT NULL,
    quantity integer NOT NULL,
    recipient_name text NOT NULL,
    recipient_email text NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    snapshot jsonb,
    reviewer_id bigint,
    seats jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    accepted_at timestamp with time zone,
    completed_at timestamp with time zone,
    event_seq integer DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    in_hand_on date,
    event_starts_at timestamp with time zone,
    deliver_by timestamp with time zone,
    due_soon_at timestamp with time zone,
    due_soon_fired_at timestamp with time zone,
    overdue_fired_at timestamp with time zone,
    rejection_reason text,
    rejection_notes text,
    closed_at timestamp with time zone,
    receipt_confirm_by timestamp with time zone,
    livemode boolean DEFAULT true NOT NULL,
    test_clock_id bigint
)
WITH (fillfactor='85');

CREATE TABLE public.phone_numbers (
    id bigint NOT NULL,
    label text,
    country_code text NOT NULL,
    number text NOT NULL,
    extension text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.phone_numbers_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.phone_numbers_id_seq OWNED BY public.phone_numbers.id;

CREATE SEQUENCE public.sandbox_ids
    START WITH 7000000000000001
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE public.seats (
    ticket_group_pk bigint NOT NULL,
    "position" integer NOT NULL,
    barcode text,
    primary_ticket_id bigint,
    seat text NOT NULL,
    verification_id text
);

CREATE TABLE public.shipment_barcodes (
    id bigint NOT NULL,
    shipment_id bigint NOT NULL,
    order_id bigint NOT NULL,
    seat text,
    key text NOT NULL,
    value text NOT NULL,
    source text NOT NULL,
    given_at timestamp with time zone NOT NULL,
    given_by bigint,
    revoked_at timestamp with time zone,
    revoked_by bigint,
    CONSTRAINT shipment_barcodes_key CHECK ((key = ANY (ARRAY['barcode'::text, 'primary_ticket_id'::text, 'verification_id'::text]))),
    CONSTRAINT shipment_barcodes_revoked CHECK (((revoked_at IS NULL) = (revoked_by IS NULL)))
);

CREATE SEQUENCE public.shipment_barcodes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.shipment_barcodes_id_seq OWNED BY public.shipment_barcodes.id;

CREATE TABLE public.shipment_events (
    id bigint NOT NULL,
    event_id text NOT NULL,
    order_id bigint NOT NULL,
    seq integer NOT NULL,
    kind text NOT NULL,
    shipment_id bigint,
    new_shipment_id bigint,
    from_type text,
    to_type text,
    from_state text,
    to_state text,
    actor_brokerage_id bigint,
    actor_user_id bigint,
    actor_role text,
    command_id text,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor_type text DEFAULT 'party'::text NOT NULL,
    actor_reason text,
    details jsonb,
    shipment_before jsonb,
    livemode boolean DEFAULT true NOT NULL,
    test_clock_id bigint,
    CONSTRAINT shipment_events_actor CHECK ((((actor_type = 'party'::text) AND (actor_brokerage_id IS NOT NULL) AND (actor_role = ANY (ARRAY['seller'::text, 'buyer'::text])) AND (command_id IS NOT NULL) AND (actor_reason IS NULL)) OR ((actor_type = 'system'::text) AND (actor_brokerage_id IS NULL) AND (actor_user_id IS NULL) AND (actor_role IS NULL) AND (command_id IS NULL) AND (actor_reason IS NOT NULL))))
);

CREATE SEQUENCE public.shipment_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.shipment_events_id_seq OWNED BY public.shipment_events.id;

CREATE TABLE public.shipment_file_sets (
    id bigint NOT NULL,
    order_id bigint NOT NULL,
    shipment_id bigint NOT NULL,
    kind text NOT NULL,
    command_id text NOT NULL,
    brokerage_id bigint NOT NULL,
    user_id bigint,
    created_at timestamp with time zone DEFAULT public.fulfil_now() NOT NULL,
    replaced_at timestamp with time zone
);

CREATE SEQUENCE public.shipment_file_sets_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.shipment_file_sets_id_seq OWNED BY public.shipment_file_sets.id;

CREATE TABLE public.shipment_files (
    id bigint NOT NULL,
    set_id bigint NOT NULL,
    "position" integer NOT NULL,
    sha256 text NOT NULL,
    seat text,
    barcode text,
    note text
);

CREATE SEQUENCE public.shipment_files_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.shipment_files_id_seq OWNED BY public.shipment_files.id;

CREATE TABLE public.shipments (
    id bigint NOT NULL,
    order_id bigint NOT NULL,
    type text NOT NULL,
    state text NOT NULL,
    snapshot jsonb NOT NULL,
    replaced_by bigint,
    replaced_at timestamp with time zone,
    ship_to_name text,
    email_address_id bigint,
    x_mobile_link text,
    transfer_source text,
    ship_from_name text,
    ship_from_address_id bigint,
    ship_from_phone_number_id bigint,
    phone_number_id bigint,
    pickup_time_range text,
    pickup_instructions text,
    notes text,
    created_at timestamp with time zone DEFAULT public.fulfil_now() NOT NULL,
    delivered_at timestamp with time zone,
    ship_to_address_id bigint,
    service_type text,
    tracking_number text,
    carrier_tracker_id text,
    carrier_label_id text,
    estimated_delivery_at timestamp with time zone
)
WITH (fillfactor='85');

CREATE SEQUENCE public.shipments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.shipments_id_seq OWNED BY public.shipments.id;

CREATE TABLE public.simulated_scans (
    id bigint NOT NULL,
    order_id bigint NOT NULL,
    shipment_id bigint NOT NULL,
    seq integer NOT NULL,
    tracking_code text NOT NULL,
    status text NOT NULL,
    description text,
    location text,
    estimated_delivery_at timestamp with time zone,
    due_at timestamp with time zone NOT NULL,
    fired_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.simulated_scans_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.simulated_scans_id_seq OWNED BY public.simulated_scans.id;

CREATE TABLE public.stored_files (
    sha256 text NOT NULL,
    bytes integer NOT NULL,
    media_type text NOT NULL,
    pages integer,
    width integer,
    height integer,
    content bytea,
    stored_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.test_clock_events (
    event_id text NOT NULL,
    clock_id bigint NOT NULL,
    kind text NOT NULL,
    body jsonb NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.test_clocks (
    id bigint DEFAULT nextval('public.sandbox_ids'::regclass) NOT NULL,
    brokerage_id bigint NOT NULL,
    name text,
    frozen_time timestamp with time zone NOT NULL,
    status text DEFAULT 'ready'::text NOT NULL,
    advance_to timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT test_clocks_advance_to CHECK (((status = 'advancing'::text) = (advance_to IS NOT NULL))),
    CONSTRAINT test_clocks_status CHECK ((status = ANY (ARRAY['ready'::text, 'advancing'::text])))
);

CREATE TABLE public.ticket_groups (
    pk bigint NOT NULL,
    office_id bigint NOT NULL,
    remote_id bigint NOT NULL,
    id bigint,
    event_id bigint,
    account_email text,
    cost numeric(14,2),
    taxed_cost numeric(14,2),
    price numeric(14,2),
    face_value numeric(14,2),
    discount numeric(14,2),
    quantity integer DEFAULT 0 NOT NULL,
    format text,
    type text,
    view_type text,
    section text,
    "row" text,
    split_type text,
    split_override integer[],
    wheelchair_accessible boolean DEFAULT false NOT NULL,
    eticket boolean DEFAULT false NOT NULL,
    instant_delivery boolean DEFAULT false NOT NULL,
    in_hand boolean DEFAULT false NOT NULL,
    in_hand_on date,
    external_notes text,
    speculative boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.ticket_groups_pk_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.ticket_groups_pk_seq OWNED BY public.ticket_groups.pk;

CREATE TABLE public.tracking_claims (
    carrier text NOT NULL,
    number_key text NOT NULL,
    tracking_number text NOT NULL,
    order_id bigint NOT NULL,
    shipment_id bigint NOT NULL,
    tracker_id text,
    state text DEFAULT 'live'::text NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.tracking_events (
    id bigint NOT NULL,
    order_id bigint NOT NULL,
    shipment_id bigint NOT NULL,
    source text NOT NULL,
    status text NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    location text,
    description text,
    seller_claim boolean DEFAULT false NOT NULL,
    carrier_event_id text,
    recorded_at timestamp with time zone DEFAULT public.fulfil_now() NOT NULL,
    held boolean DEFAULT false NOT NULL,
    time_flag text,
    reported_time text,
    revoked boolean DEFAULT false NOT NULL
);

CREATE SEQUENCE public.tracking_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.tracking_events_id_seq OWNED BY public.tracking_events.id;

CREATE TABLE public.users (
    id bigint NOT NULL,
    brokerage_id bigint NOT NULL,
    name text NOT NULL,
    email text NOT NULL
);

CREATE TABLE public.webhook_attempts (
    id bigint NOT NULL,
    endpoint_id bigint NOT NULL,
    delivery_id bigint,
    event_id text,
    order_id bigint,
    attempt integer NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    outcome text NOT NULL,
    status_code integer,
    error text,
    latency_ms integer
);

CREATE SEQUENCE public.webhook_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.webhook_attempts_id_seq OWNED BY public.webhook_attempts.id;

CREATE TABLE public.webhook_deliveries (
    id bigint NOT NULL,
    endpoint_id bigint NOT NULL,
    order_id bigint,
    seq integer NOT NULL,
    event_id text NOT NULL,
    kind text NOT NULL,
    event_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    delivered_at timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    redelivery boolean DEFAULT false NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    leased_until timestamp with time zone
);

CREATE SEQUENCE public.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.webhook_deliveries_id_seq OWNED BY public.webhook_deliveries.id;

CREATE TABLE public.webhook_endpoints (
    id bigint NOT NULL,
    brokerage_id bigint NOT NULL,
    url text NOT NULL,
    event_kinds text[],
    enabled boolean DEFAULT true NOT NULL,
    disabled_reason text,
    disabled_at timestamp with time zone,
    secret_ciphertext text NOT NULL,
    previous_secret_ciphertext text,
    previous_secret_expires_at timestamp with time zone,
    failing_since timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.webhook_endpoints_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.webhook_endpoints_id_seq OWNED BY public.webhook_endpoints.id;

ALTER TABLE ONLY public.addresses ALTER COLUMN id SET DEFAULT nextval('public.addresses_id_seq'::regclass);

ALTER TABLE ONLY public.delivery_issue_responses ALTER COLUMN id SET DEFAULT nextval('public.delivery_issue_responses_id_seq'::regclass);

ALTER TABLE ONLY public.delivery_issues ALTER COLUMN id SET DEFAULT nextval('public.delivery_issues_id_seq'::regclass);

ALTER TABLE ONLY public.email_addresses ALTER COLUMN id SET DEFAULT nextval('public.email_addresses_id_seq'::regclass);

ALTER TABLE ONLY public.file_downloads ALTER COLUMN id SET DEFAULT nextval('public.file_downloads_id_seq'::regclass);

ALTER TABLE ONLY public.holds ALTER COLUMN id SET DEFAULT nextval('public.holds_id_seq'::regclass);

ALTER TABLE ONLY public.phone_numbers ALTER COLUMN id SET DEFAULT nextval('public.phone_numbers_id_seq'::regclass);

ALTER TABLE ONLY public.shipment_barcodes ALTER COLUMN id SET DEFAULT nextval('public.shipment_barcodes_id_seq'::regclass);

ALTER TABLE ONLY public.shipment_events ALTER COLUMN id SET DEFAULT nextval('public.shipment_events_id_seq'::regclass);

ALTER TABLE ONLY public.shipment_file_sets ALTER COLUMN id SET DEFAULT nextval('public.shipment_file_sets_id_seq'::regclass);

ALTER TABLE ONLY public.shipment_files ALTER COLUMN id SET DEFAULT nextval('public.shipment_files_id_seq'::regclass);

ALTER TABLE ONLY public.shipments ALTER COLUMN id SET DEFAULT nextval('public.shipments_id_seq'::regclass);

ALTER TABLE ONLY public.simulated_scans ALTER COLUMN id SET DEFAULT nextval('public.simulated_scans_id_seq'::regclass);

ALTER TABLE ONLY public.ticket_groups ALTER COLUMN pk SET DEFAULT nextval('public.ticket_groups_pk_seq'::regclass);

ALTER TABLE ONLY public.tracking_events ALTER COLUMN id SET DEFAULT nextval('public.tracking_events_id_seq'::regclass);

ALTER TABLE ONLY public.webhook_attempts ALTER COLUMN id SET DEFAULT nextval('public.webhook_attempts_id_seq'::regclass);

ALTER TABLE ONLY public.webhook_deliveries ALTER COLUMN id SET DEFAULT nextval('public.webhook_deliveries_id_seq'::regclass);

ALTER TABLE ONLY public.webhook_endpoints ALTER COLUMN id SET DEFAULT nextval('public.webhook_endpoints_id_seq'::regclass);

ALTER TABLE ONLY public.addresses
    ADD CONSTRAINT addresses_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.brokerages
    ADD CONSTRAINT brokerages_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.commands
    ADD CONSTRAINT commands_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_pkey PRIMARY KEY (token);

ALTER TABLE ONLY public.delivery_issue_responses
    ADD CONSTRAINT delivery_issue_responses_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.delivery_issues
    ADD CONSTRAINT delivery_issues_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.email_addresses
    ADD CONSTRAINT email_addresses_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.event_feed_head
    ADD CONSTRAINT event_feed_head_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.file_downloads
    ADD CONSTRAINT file_downloads_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.file_links
    ADD CONSTRAINT file_links_pkey PRIMARY KEY (token_sha256);

ALTER TABLE ONLY public.holds
    ADD CONSTRAINT holds_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.label_purchases
    ADD CONSTRAINT label_purchases_pkey PRIMARY KEY (shipment_id);

ALTER TABLE ONLY public.offices
    ADD CONSTRAINT offices_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_oid_unique UNIQUE (oid);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.phone_numbers
    ADD CONSTRAINT phone_numbers_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.seats
    ADD CONSTRAINT seats_ticket_group_pk_position_pk PRIMARY KEY (ticket_group_pk, "position");

ALTER TABLE ONLY public.shipment_barcodes
    ADD CONSTRAINT shipment_barcodes_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.shipment_events
    ADD CONSTRAINT shipment_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.shipment_file_sets
    ADD CONSTRAINT shipment_file_sets_command_id_unique UNIQUE (command_id);

ALTER TABLE ONLY public.shipment_file_sets
    ADD CONSTRAINT shipment_file_sets_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.shipment_files
    ADD CONSTRAINT shipment_files_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.shipments
    ADD CONSTRAINT shipments_order_replaced_by_key UNIQUE NULLS NOT DISTINCT (order_id, replaced_by);

ALTER TABLE ONLY public.shipments
    ADD CONSTRAINT shipments_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.simulated_scans
    ADD CONSTRAINT simulated_scans_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.stored_files
    ADD CONSTRAINT stored_files_pkey PRIMARY KEY (sha256);

ALTER TABLE ONLY public.test_clock_events
    ADD CONSTRAINT test_clock_events_pkey PRIMARY KEY (event_id);

ALTER TABLE ONLY public.test_clocks
    ADD CONSTRAINT test_clocks_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ticket_groups
    ADD CONSTRAINT ticket_groups_pkey PRIMARY KEY (pk);

ALTER TABLE ONLY public.tracking_claims
    ADD CONSTRAINT tracking_claims_pkey PRIMARY KEY (carrier, number_key);

ALTER TABLE ONLY public.tracking_events
    ADD CONSTRAINT tracking_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);

CREATE UNIQUE INDEX brokerages_sandbox_of_key ON public.brokerages USING btree (sandbox_of);

CREATE UNIQUE INDEX carrier_events_once ON public.carrier_events USING btree (provider, event_id);

CREATE INDEX carrier_events_received_idx ON public.carrier_events USING btree (received_at);

CREATE INDEX commands_created_brin ON public.commands USING brin (created_at);

CREATE UNIQUE INDEX commands_idempotency_key ON public.commands USING btree (brokerage_id, idempotency_key) WHERE (idempotency_key IS NOT NULL);

CREATE INDEX commands_open_idx ON public.commands USING btree (status) WHERE (status <> 'succeeded'::text);

CREATE INDEX credentials_brokerage_idx ON public.credentials USING btree (brokerage_id);

CREATE INDEX delivery_issue_responses_issue_idx ON public.delivery_issue_responses USING btree (issue_id, id);

CREATE INDEX delivery_issues_escalated_idx ON public.delivery_issues USING btree (escalated_at, id) WHERE (state = 'escalated'::text);

CREATE UNIQUE INDEX delivery_issues_one_undecided ON public.delivery_issues USING btree (order_id) WHERE (state = ANY (ARRAY['open'::text, 'seller_responded'::text, 'escalated'::text]));

CREATE INDEX delivery_issues_open_respond_by_idx ON public.delivery_issues USING btree (respond_by, id) WHERE (state = 'open'::text);

CREATE INDEX delivery_issues_order_idx ON public.delivery_issues USING btree (order_id, id);

CREATE INDEX event_feed_buyer ON public.event_feed USING btree (buyer_brokerage_id, "position") WHERE ("position" IS NOT NULL);

CREATE INDEX event_feed_seller ON public.event_feed USING btree (seller_brokerage_id, "position") WHERE ("position" IS NOT NULL);

CREATE UNIQUE INDEX event_feed_waiting ON public.event_feed USING btree (event_row_id) WHERE ("position" IS NULL);

CREATE INDEX file_downloads_order_idx ON public.file_downloads USING btree (order_id, at);

CREATE INDEX holds_active_idx ON public.holds USING btree (order_id) WHERE (released_at IS NULL);

CREATE UNIQUE INDEX holds_order_handle ON public.holds USING btree (order_id, handle);

CREATE INDEX holds_release_due_idx ON public.holds USING btree (release_at, order_id) WHERE ((released_at IS NULL) AND (release_at IS NOT NULL));

CREATE INDEX offices_brokerage_idx ON public.offices USING btree (brokerage_id);

CREATE UNIQUE INDEX offices_sandbox_of_key ON public.offices USING btree (sandbox_of);

CREATE INDEX orders_buyer_brokerage_created_idx ON public.orders USING btree (buyer_brokerage_id, created_at, id);

CREATE INDEX orders_created_idx ON public.orders USING btree (created_at, id);

CREATE INDEX orders_open_deliver_by_idx ON public.orders USING btree (deliver_by, id) WHERE ((state = ANY (ARRAY['pending'::text, 'accepted'::text, 'cancel_proposed'::text])) AND (deliver_by IS NOT NULL));

CREATE INDEX orders_receipt_confirm_by_idx ON public.orders USING btree (receipt_confirm_by, id) WHERE (receipt_confirm_by IS NOT NULL);

CREATE INDEX orders_seller_office_created_idx ON public.orders USING btree (seller_office_id, created_at, id);

CREATE INDEX orders_state_created_idx ON public.orders USING btree (state, created_at, id);

CREATE INDEX orders_test_clock_idx ON public.orders USING btree (test_clock_id, id) WHERE (test_clock_id IS NOT NULL);

CREATE INDEX shipment_barcodes_shipment_idx ON public.shipment_barcodes USING btree (shipment_id, id);

CREATE UNIQUE INDEX shipment_events_order_seq ON public.shipment_events USING btree (order_id, seq);

CREATE UNIQUE INDEX shipment_file_sets_one_current ON public.shipment_file_sets USING btree (shipment_id) WHERE ((kind = 'etickets'::text) AND (replaced_at IS NULL));

CREATE INDEX shipment_file_sets_replaced_idx ON public.shipment_file_sets USING btree (replaced_at) WHERE (replaced_at IS NOT NULL);

CREATE INDEX shipment_file_sets_shipment_idx ON public.shipment_file_sets USING btree (shipment_id, kind);

CREATE UNIQUE INDEX shipment_files_set_position ON public.shipment_files USING btree (set_id, "position");

CREATE INDEX shipment_files_sha256_idx ON public.shipment_files USING btree (sha256);

CREATE INDEX shipments_tracking_number_idx ON public.shipments USING btree (tracking_number) WHERE ((tracking_number IS NOT NULL) AND (replaced_by IS NULL));

CREATE INDEX simulated_scans_due_idx ON public.simulated_scans USING btree (due_at, order_id) WHERE (fired_at IS NULL);

CREATE UNIQUE INDEX simulated_scans_once ON public.simulated_scans USING btree (shipment_id, seq);

CREATE INDEX simulated_scans_unfired_idx ON public.simulated_scans USING btree (order_id, due_at, seq) WHERE (fired_at IS NULL);

CREATE INDEX test_clocks_advancing_idx ON public.test_clocks USING btree (id) WHERE (status = 'advancing'::text);

CREATE INDEX test_clocks_brokerage_idx ON public.test_clocks USING btree (brokerage_id, id);

CREATE INDEX ticket_groups_mapped_by_id ON public.ticket_groups USING btree (office_id, id) WHERE ((id IS NOT NULL) AND (event_id IS NOT NULL));

CREATE INDEX ticket_groups_mapped_by_remote ON public.ticket_groups USING btree (office_id, remote_id) WHERE ((id IS NOT NULL) AND (event_id IS NOT NULL));

CREATE UNIQUE INDEX ticket_groups_office_remote ON public.ticket_groups USING btree (office_id, remote_id);

CREATE UNIQUE INDEX ticket_groups_service_id ON public.ticket_groups USING btree (id);

CREATE INDEX ticket_groups_unmapped_by_remote ON public.ticket_groups USING btree (office_id, remote_id) WHERE ((id IS NULL) AND (event_id IS NULL));

CREATE INDEX tracking_claims_order_idx ON public.tracking_claims USING btree (order_id);

CREATE INDEX tracking_claims_tracker_idx ON public.tracking_claims USING btree (tracker_id) WHERE (tracker_id IS NOT NULL);

CREATE UNIQUE INDEX tracking_events_once ON public.tracking_events USING btree (shipment_id, source, status, occurred_at);

CREATE INDEX tracking_events_order_idx ON public.tracking_events USING btree (order_id, occurred_at);

CREATE INDEX users_brokerage_idx ON public.users USING btree (brokerage_id);

CREATE INDEX webhook_attempts_delivery_idx ON public.webhook_attempts USING btree (delivery_id);

CREATE INDEX webhook_attempts_endpoint_idx ON public.webhook_attempts USING btree (endpoint_id, id);

CREATE UNIQUE INDEX webhook_deliveries_endpoint_event ON public.webhook_deliveries USING btree (endpoint_id, event_id);

CREATE INDEX webhook_deliveries_order_idx ON public.webhook_deliveries USING btree (order_id);

CREATE INDEX webhook_deliveries_pending_idx ON public.webhook_deliveries USING btree (endpoint_id, order_id, seq) WHERE (delivered_at IS NULL);

CREATE INDEX webhook_endpoints_brokerage_idx ON public.webhook_endpoints USING btree (brokerage_id);

CREATE TRIGGER credentials_notify AFTER DELETE OR UPDATE ON public.credentials FOR EACH ROW EXECUTE FUNCTION public.fulfil_credential_notify();

CREATE TRIGGER credentials_notify_truncate AFTER TRUNCATE ON public.credentials FOR EACH STATEMENT EXECUTE FUNCTION public.fulfil_credential_notify();

CREATE TRIGGER orders_touch BEFORE UPDATE ON public.orders FOR EACH ROW EXECUTE FUNCTION public.fulfil_orders_touch();

ALTER TABLE ONLY public.brokerages
    ADD CONSTRAINT brokerages_sandbox_of_brokerages_id_fk FOREIGN KEY (sandbox_of) REFERENCES public.brokerages(id);

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_brokerage_id_brokerages_id_fk FOREIGN KEY (brokerage_id) REFERENCES public.brokerages(id);

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_user_id_users_id_fk FOREIGN KEY (user_id) REFERENCES public.users(id);

ALTER TABLE ONLY public.delivery_issue_responses
    ADD CONSTRAINT delivery_issue_responses_issue_id_fk FOREIGN KEY (issue_id) REFERENCES public.delivery_issues(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.delivery_issues
    ADD CONSTRAINT delivery_issues_order_id_orders_id_fk FOREIGN KEY (order_id) REFERENCES public.orders(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.file_downloads
    ADD CONSTRAINT file_downloads_file_id_fk FOREIGN KEY (file_id) REFERENCES public.shipment_files(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.file_links
    ADD CONSTRAINT file_links_file_id_shipment_files_id_fk FOREIGN KEY (file_id) REFERENCES public.shipment_files(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.holds
    ADD CONSTRAINT holds_order_id_orders_id_fk FOREIGN KEY (order_id) REFERENCES public.orders(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.offices
    ADD CONSTRAINT offices_brokerage_id_brokerages_id_fk FOREIGN KEY (brokerage_id) REFERENCES public.brokerages(id);

ALTER TABLE ONLY public.offices
    ADD CONSTRAINT offices_sandbox_of_offices_id_fk FOREIGN KEY (sandbox_of) REFERENCES public.offices(id);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_buyer_brokerage_id_brokerages_id_fk FOREIGN KEY (buyer_brokerage_id) REFERENCES public.brokerages(id);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_seller_office_id_offices_id_fk FOREIGN KEY (seller_office_id) REFERENCES public.offices(id);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_test_clock_id_test_clocks_id_fk FOREIGN KEY (test_clock_id) REFERENCES public.test_clocks(id);

ALTER TABLE ONLY public.seats
    ADD CONSTRAINT seats_ticket_group_pk_ticket_groups_pk_fk FOREIGN KEY (ticket_group_pk) REFERENCES public.ticket_groups(pk) ON DELETE CASCADE;

ALTER TABLE ONLY public.shipment_barcodes
    ADD CONSTRAINT shipment_barcodes_given_by_fk FOREIGN KEY (given_by) REFERENCES public.delivery_issue_responses(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.shipment_barcodes
    ADD CONSTRAINT shipment_barcodes_revoked_by_fk FOREIGN KEY (revoked_by) REFERENCES public.delivery_issue_responses(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.shipment_files
    ADD CONSTRAINT shipment_files_set_id_shipment_file_sets_id_fk FOREIGN KEY (set_id) REFERENCES public.shipment_file_sets(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.shipment_files
    ADD CONSTRAINT shipment_files_sha256_stored_files_sha256_fk FOREIGN KEY (sha256) REFERENCES public.stored_files(sha256) ON DELETE RESTRICT;

ALTER TABLE ONLY public.shipments
    ADD CONSTRAINT shipments_email_address_id_email_addresses_id_fk FOREIGN KEY (email_address_id) REFERENCES public.email_addresses(id);

ALTER TABLE ONLY public.shipments
    ADD CONSTRAINT shipments_phone_number_id_phone_numbers_id_fk FOREIGN KEY (phone_number_id) REFERENCES public.phone_numbers(id);

ALTER TABLE ONLY public.shipments
    ADD CONSTRAINT shipments_ship_from_address_id_addresses_id_fk FOREIGN KEY (ship_from_address_id) REFERENCES public.addresses(id);

ALTER TABLE ONLY public.shipments
    ADD CONSTRAINT shipments_ship_from_phone_number_id_phone_numbers_id_fk FOREIGN KEY (ship_from_phone_number_id) REFERENCES public.phone_numbers(id);

ALTER TABLE ONLY public.shipments
    ADD CONSTRAINT shipments_ship_to_address_id_addresses_id_fk FOREIGN KEY (ship_to_address_id) REFERENCES public.addresses(id);

ALTER TABLE ONLY public.simulated_scans
    ADD CONSTRAINT simulated_scans_order_id_orders_id_fk FOREIGN KEY (order_id) REFERENCES public.orders(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.simulated_scans
    ADD CONSTRAINT simulated_scans_shipment_id_shipments_id_fk FOREIGN KEY (shipment_id) REFERENCES public.shipments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.test_clock_events
    ADD CONSTRAINT test_clock_events_clock_id_test_clocks_id_fk FOREIGN KEY (clock_id) REFERENCES public.test_clocks(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.test_clocks
    ADD CONSTRAINT test_clocks_brokerage_id_brokerages_id_fk FOREIGN KEY (brokerage_id) REFERENCES public.brokerages(id);

ALTER TABLE ONLY public.ticket_groups
    ADD CONSTRAINT ticket_groups_office_id_offices_id_fk FOREIGN KEY (office_id) REFERENCES public.offices(id);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_brokerage_id_brokerages_id_fk FOREIGN KEY (brokerage_id) REFERENCES public.brokerages(id);

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_webhook_deliveries_id_fk FOREIGN KEY (delivery_id) REFERENCES public.webhook_deliveries(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_endpoint_id_webhook_endpoints_id_fk FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_webhook_endpoints_id_fk FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_brokerage_id_brokerages_id_fk FOREIGN KEY (brokerage_id) REFERENCES public.brokerages(id);
