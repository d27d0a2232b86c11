import type { Db } from './db.js'

/**
 * The schema, as an ordered list of SQL scripts. Append only: a script that
 * has run somewhere is never edited; change the schema with a new one.
 * Script N (1-based) is recorded as version N in `schema_migrations`.
 */
export const migrations: readonly string[] = [
  /* 1: projects, wallet registry, analytics, rate limits */ `
  CREATE TABLE projects (
    id text PRIMARY KEY,
    name text NOT NULL,
    allowed_origins jsonb NOT NULL DEFAULT '[]'::jsonb,
    features jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );

  CREATE TABLE wallet_images (
    id text PRIMARY KEY,
    content_type text NOT NULL,
    bytes bytea NOT NULL,
    sha256 text NOT NULL
  );

  CREATE TABLE wallets (
    id text PRIMARY KEY,
    position integer NOT NULL,
    name text NOT NULL,
    image_id text,
    rdns text,
    chains text[] NOT NULL DEFAULT '{}',
    mobile_link text,
    desktop_link text,
    webapp_link text,
    homepage text,
    badge_type text
  );
  CREATE INDEX wallets_position_idx ON wallets (position, id);

  CREATE TABLE analytics_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    event_id uuid NOT NULL,
    client_id text,
    sdk_type text,
    sdk_version text,
    url text NOT NULL,
    domain text NOT NULL,
    client_timestamp bigint NOT NULL,
    type text NOT NULL,
    event text NOT NULL,
    props jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, event_id)
  );
  CREATE INDEX analytics_events_received_idx ON analytics_events (project_id, received_at);

  CREATE TABLE rate_limits (
    key text NOT NULL,
    window_start timestamptz NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (key, window_start)
  );
  CREATE INDEX rate_limits_window_idx ON rate_limits (window_start);
  `,
  /* 2: the networks each project offers, the first being its default */ `
  ALTER TABLE projects ADD COLUMN networks jsonb NOT NULL DEFAULT '["eip155:1"]'::jsonb;
  `,
  /* 3: sign-in with X: single-use nonces and sessions (tokens kept as SHA-256 only) */ `
  CREATE TABLE siwx_nonces (
    nonce text PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at timestamptz
  );
  CREATE INDEX siwx_nonces_expires_idx ON siwx_nonces (expires_at);

  CREATE TABLE siwx_sessions (
    token_sha256 text PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    origin text NOT NULL,
    address text NOT NULL,
    chain_id text NOT NULL,
    domain text NOT NULL,
    uri text NOT NULL,
    issued_at timestamptz NOT NULL,
    expiration_time timestamptz,
    expires_at timestamptz NOT NULL,
    message text NOT NULL,
    signature text NOT NULL,
    nonce text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX siwx_sessions_expires_idx ON siwx_sessions (expires_at);
  `,
  /* 4: email login: one-time codes (salted SHA-256 only), the per-address send throttle, the dev outbox */ `
  CREATE TABLE email_otps (
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    email text NOT NULL,
    salt text NOT NULL,
    code_sha256 text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    failed_attempts integer NOT NULL DEFAULT 0,
    used_at timestamptz,
    PRIMARY KEY (project_id, email)
  );
  CREATE INDEX email_otps_expires_idx ON email_otps (expires_at);

  CREATE TABLE email_send_throttle (
    email text PRIMARY KEY,
    sent_at timestamptz NOT NULL
  );
  CREATE INDEX email_send_throttle_sent_idx ON email_send_throttle (sent_at);

  CREATE TABLE dev_outbox (
    id bigserial PRIMARY KEY,
    sender text NOT NULL,
    recipient text NOT NULL,
    subject text NOT NULL,
    body text NOT NULL,
    sent_at timestamptz NOT NULL DEFAULT now()
  );
  `,
  /*
   * 5: embedded wallets: users and their login identities, verified devices,
   * device approvals, sessions, key shares, social logins, email changes.
   * Tokens, device ids and OAuth states are kept as SHA-256 only; the
   * recovery share only encrypted (AES-256-GCM under a key outside the
   * database). Codes gain a purpose: login, or one step of an email change.
   */ `
  CREATE TABLE users (
    id text PRIMARY KEY,
    email text UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
  );

  CREATE TABLE identities (
    provider text NOT NULL,
    subject text NOT NULL,
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, subject)
  );
  CREATE INDEX identities_user_idx ON identities (user_id);

  CREATE TABLE devices (
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device_id_sha256 text NOT NULL,
    verified_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, device_id_sha256)
  );

  CREATE TABLE device_verifications (
    token_sha256 text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    device_id_sha256 text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at timestamptz
  );
  CREATE INDEX device_verifications_expires_idx ON device_verifications (expires_at);

  CREATE TABLE embedded_sessions (
    token_sha256 text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    device_id_sha256 text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
  );
  CREATE INDEX embedded_sessions_user_idx ON embedded_sessions (user_id);
  CREATE INDEX embedded_sessions_expires_idx ON embedded_sessions (expires_at);

  CREATE TABLE wallet_shares (
    user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    auth_share text NOT NULL,
    recovery_share_ciphertext text NOT NULL,
    recovery_share_iv text NOT NULL,
    recovery_share_key_id text NOT NULL,
    evm_address text NOT NULL,
    solana_address text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );

  CREATE TABLE social_logins (
    state_sha256 text PRIMARY KEY,
    provider text NOT NULL,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    device_id_sha256 text NOT NULL,
    code_verifier text NOT NULL,
    nonce text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    user_id text REFERENCES users (id) ON DELETE CASCADE,
    error text,
    completed_at timestamptz,
    consumed_at timestamptz
  );
  CREATE INDEX social_logins_expires_idx ON social_logins (expires_at);

  CREATE TABLE email_updates (
    user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    new_email text NOT NULL,
    stage text NOT NULL CHECK (stage IN ('primary', 'secondary')),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  );

  ALTER TABLE email_otps ADD COLUMN purpose text NOT NULL DEFAULT 'login'
    CHECK (purpose IN ('login', 'email-update-primary', 'email-update-secondary'));
  ALTER TABLE email_otps DROP CONSTRAINT email_otps_pkey;
  ALTER TABLE email_otps ADD PRIMARY KEY (project_id, purpose, email);
  `,
  // 6: Sign In With Farcaster. A login is keyed by the SHA-256 of the frame's
  // state; it keeps the relay channel's token (to poll it) and the nonce the
  // signed message must carry, for 10 minutes.
  `
  CREATE TABLE farcaster_logins (
    state_sha256 text PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    device_id_sha256 text NOT NULL,
    channel_token text NOT NULL,
    nonce text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    user_id text REFERENCES users (id) ON DELETE CASCADE,
    consumed_at timestamptz
  );
  CREATE INDEX farcaster_logins_expires_idx ON farcaster_logins (expires_at);
  `,
  // 7: a finished social login is bound to the window that opened its popup
  // (SECURITY.md 15): the SHA-256 of the one-time claim made at the callback,
  // and how many results asked with another claim.
  `
  ALTER TABLE social_logins ADD COLUMN claim_sha256 text;
  ALTER TABLE social_logins ADD COLUMN claim_failures integer NOT NULL DEFAULT 0;
  `,
  // 8: the strongest factor decides (SECURITY.md 23). A social login that
  // found its account by email alone keeps the provider's subject, to link
  // only once that email confirms it: until then the link waits, for the
  // device that asked, 10 minutes.
  `
  ALTER TABLE social_logins ADD COLUMN link_subject text;

  CREATE TABLE identity_links (
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider text NOT NULL,
    subject text NOT NULL,
    device_id_sha256 text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, device_id_sha256, provider, subject)
  );
  CREATE INDEX identity_links_expires_idx ON identity_links (expires_at);
  `,
  // 9: a spent project mail budget raises the cost instead of refusing
  // (SECURITY.md 22): proof-of-work challenges (stored as the SHA-256 of the
  // challenge and what it is bound to, spent by deleting the row), a
  // project's own budget (the default when absent), and the operator's
  // counters per project and UTC day.
  `
  CREATE TABLE pow_challenges (
    binding_sha256 text PRIMARY KEY,
    difficulty integer NOT NULL,
    expires_at timestamptz NOT NULL
  );
  CREATE INDEX pow_challenges_expires_idx ON pow_challenges (expires_at);

  CREATE TABLE project_mail_budgets (
    project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    mails_per_window integer NOT NULL CHECK (mails_per_window > 0)
  );

  CREATE TABLE mail_budget_counts (
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day date NOT NULL,
    overflow_mails integer NOT NULL DEFAULT 0,
    challenges_issued integer NOT NULL DEFAULT 0,
    challenges_solved integer NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day)
  );
  `,
  // 10: the RPC proxy (SECURITY.md 22, 24): whether a project may send heavy
  // parameters (state and block overrides, eth_getLogs over any range), and
  // the operator's counters of its spent budget per project and UTC day.
  `
  ALTER TABLE projects ADD COLUMN heavy_rpc boolean NOT NULL DEFAULT false;

  CREATE TABLE rpc_budget_counts (
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day date NOT NULL,
    windows_spent integer NOT NULL DEFAULT 0,
    overflow_calls bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day)
  );
  `,
  // 11: account history (history/): per network, how far the indexer has
  // read and who holds its lease; the hash of each block read (a reorg is
  // found by comparing them); every transfer, one row per token moved
  // (native value: log_index -1); what the indexer learnt of each token
  // contract; contracts a rule or the operator flags as spam.
  `
  CREATE TABLE history_cursors (
    chain_id text PRIMARY KEY,
    next_block bigint NOT NULL,
    genesis_hash text,
    lease_holder text,
    lease_expires_at timestamptz
  );

  CREATE TABLE history_blocks (
    chain_id text NOT NULL,
    number bigint NOT NULL,
    hash text NOT NULL,
    PRIMARY KEY (chain_id, number)
  );

  CREATE TABLE history_transfers (
    chain_id text NOT NULL,
    tx_hash text NOT NULL,
    log_index integer NOT NULL,
    sub_index integer NOT NULL,
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    mined_at timestamptz NOT NULL,
    status text NOT NULL CHECK (status IN ('confirmed', 'failed')),
    kind text NOT NULL CHECK (kind IN ('native', 'erc20', 'erc721', 'erc1155')),
    token text,
    token_id text,
    tx_from text NOT NULL,
    from_address text NOT NULL,
    to_address text NOT NULL,
    amount numeric(78, 0) NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index, sub_index)
  );
  CREATE INDEX history_transfers_from_idx
    ON history_transfers (chain_id, from_address, block_number DESC, tx_index DESC);
  CREATE INDEX history_transfers_to_idx
    ON history_transfers (chain_id, to_address, block_number DESC, tx_index DESC);
  CREATE INDEX history_transfers_block_idx ON history_transfers (chain_id, block_number);

  CREATE TABLE history_tokens (
    chain_id text NOT NULL,
    address text NOT NULL,
    name text,
    symbol text,
    decimals integer,
    PRIMARY KEY (chain_id, address)
  );

  CREATE TABLE history_spam (
    project_id text NOT NULL DEFAULT '',
    chain_id text NOT NULL,
    address text NOT NULL,
    reason text NOT NULL,
    PRIMARY KEY (project_id, chain_id, address)
  );
  `,
]

/** Any constant shared by every replica: the key of the migration lock. */
const migrationLockKey = 7_061_726_568_001

/**
 * Applies the scripts not yet recorded, in order, in one transaction. An
 * advisory transaction lock makes replicas starting at once wait for each
 * other: exactly one applies a script, the others then see it recorded.
 * Resolves to the versions applied by this call.
 */
export async function migrate(db: Db): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${migrationLockKey})`)
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )
    `)
    const rows = await tx.query<{ version: number }>('SELECT version FROM schema_migrations')
    const done = new Set(rows.map((row) => Number(row.version)))
    const applied: number[] = []
    for (const [index, script] of migrations.entries()) {
      const version = index + 1
      if (done.has(version)) continue
      await tx.exec(script)
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version])
      applied.push(version)
    }
    return applied
  })
}
