import { HttpError } from '../http/errors.js'
import type { Db, Queryable } from './db.js'

export type RateLimit = {
  /** What is limited and for whom, e.g. `error-report:<project>:<client>`. */
  key: string
  /** Most hits allowed in any window of `windowSeconds`. */
  limit: number
  windowSeconds: number
}

export type RateLimitResult =
  | {
      allowed: true
      remaining: number
      /** The counted hit, to take back with `releaseRateLimit` (the row's time, as text). */
      hit: { key: string; at: string }
    }
  | { allowed: false; retryAfterSeconds: number }

/**
 * Counts one hit against a sliding-window limit kept in the database, so it
 * holds across API replicas. Each accepted hit is a `rate_limits` row (key,
 * time, count); a hit is allowed when fewer than `limit` hits fall in the last
 * `windowSeconds`. Refused hits are not counted. An advisory transaction lock
 * on the key makes check-and-count atomic between concurrent requests.
 */
export async function consumeRateLimit(
  db: Db,
  { key, limit, windowSeconds }: RateLimit,
  /** The time of the hit: the database's `now()` unless a test's clock says otherwise. */
  at: Date | null = null,
) {
  return db.transaction(async (tx): Promise<RateLimitResult> => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [key])
    await tx.query(
      `DELETE FROM rate_limits
       WHERE key = $1 AND window_start <= coalesce($3::timestamptz, now()) - make_interval(secs => $2)`,
      [key, windowSeconds, at],
    )
    const [usage] = await tx.query<{ used: number; retry_after: number | null }>(
      `SELECT coalesce(sum(count), 0)::int AS used,
              ceil(extract(epoch FROM min(window_start) + make_interval(secs => $2)
                - coalesce($3::timestamptz, now())))::int AS retry_after
       FROM rate_limits
       WHERE key = $1 AND window_start > coalesce($3::timestamptz, now()) - make_interval(secs => $2)`,
      [key, windowSeconds, at],
    )
    const used = Number(usage?.used ?? 0)
    if (used >= limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Number(usage?.retry_after ?? 1)) }
    }
    const [counted] = await tx.query<{ at: string }>(
      `INSERT INTO rate_limits (key, window_start, count) VALUES ($1, coalesce($2::timestamptz, now()), 1)
       ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
       RETURNING window_start::text AS at`,
      [key, at],
    )
    return { allowed: true, remaining: limit - used - 1, hit: { key, at: String(counted?.at) } }
  })
}

/** Takes back one hit `consumeRateLimit` counted (its work did not happen, e.g. a mail failed). */
export async function releaseRateLimit(db: Queryable, hit: { key: string; at: string }) {
  await db.query(
    `UPDATE rate_limits SET count = count - 1 WHERE key = $1 AND window_start = $2::timestamptz`,
    [hit.key, hit.at],
  )
  await db.query(
    `DELETE FROM rate_limits WHERE key = $1 AND window_start = $2::timestamptz AND count <= 0`,
    [hit.key, hit.at],
  )
}

/** Deletes hits older than `olderThanSeconds` for every key (the server runs this now and then). */
export async function pruneRateLimits(db: Db, olderThanSeconds: number): Promise<number> {
  const rows = await db.query(
    'DELETE FROM rate_limits WHERE window_start <= now() - make_interval(secs => $1) RETURNING 1',
    [olderThanSeconds],
  )
  return rows.length
}

/**
 * Counts one hit against `limit`, or throws a 429 `rate_limited` (with
 * `Retry-After`) whose message starts with `message`.
 */
export async function enforceRateLimit(
  db: Db,
  { message, ...limit }: RateLimit & { message: string },
): Promise<void> {
  const result = await consumeRateLimit(db, limit)
  if (result.allowed) return
  const minutes = limit.windowSeconds / 60
  const window = !Number.isInteger(minutes)
    ? `${limit.windowSeconds} seconds`
    : minutes === 1
      ? 'minute'
      : `${minutes} minutes`
  throw new HttpError(
    429,
    'rate_limited',
    `${message}: at most ${limit.limit} every ${window}. Try again in ${result.retryAfterSeconds} seconds.`,
    { headers: { 'Retry-After': String(result.retryAfterSeconds) } },
  )
}

/** A per-IP limit multiplied by `IP_LIMIT_SCALE` (behind a proxy, or in a test stack). */
export function scaled<limit extends { limit: number; windowSeconds: number }>(
  rule: limit,
  scale: number,
): limit {
  return { ...rule, limit: rule.limit * scale }
}
