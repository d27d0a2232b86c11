/**
 * The RPC proxy's limits (SECURITY.md 22 and 24): per-IP then per-prefix
 * call counts held in the database (so they hold across replicas), a shared
 * per-project budget that tightens them once spent instead of refusing
 * anyone outright, and in-memory caps on concurrent upstream calls.
 *
 * The counts are cheap enough for wallet traffic: one statement counts a call
 * against its address and reads the project's count, a second against its
 * prefix once the address allowed it, a third against the project once both
 * allowed it. A refused call is taken back off the count that refused it, so
 * it spends nobody's limit (a neighbour's included) and never pushes
 * `Retry-After` further. Each key keeps one row
 * per fixed window (`rate_limits`, pruned with the other limits); a window's
 * count is estimated as the current window's plus the previous window's
 * weighted by how much of it still overlaps the sliding window, rounded up,
 * so no window boundary lets a burst through twice.
 */
import { z } from 'zod'
import type { Db } from '../db/db.js'

/** At most `limit` calls in any `windowSeconds`. */
export type WindowLimit = { limit: number; windowSeconds: number }

/**
 * Per IP (an IPv4 address, an IPv6 /64), calls to `/v1` a minute: 10 a
 * second, generous because a visitor's wallet reads a lot (balances, blocks,
 * receipts). Each call of a batch counts. Multiplied by `IP_LIMIT_SCALE`.
 */
export const rpcIpLimit: WindowLimit = { limit: 600, windowSeconds: 60 }

/** Per prefix (IPv4 /24, IPv6 /56), calls a minute: four busy visitors. Multiplied by `IP_LIMIT_SCALE`. */
export const rpcPrefixLimit: WindowLimit = { limit: 2400, windowSeconds: 60 }

/**
 * A project's shared budget, calls a minute from every address together. Once
 * spent it refuses nobody: the operator is told (a warning in the log, once
 * per window, and `npm run project -- usage`), and the per-IP and per-prefix
 * limits of that project are divided by {@link rpcSpentBudgetDivisor} until
 * the count falls below it again, which sheds the heavy callers while a fresh
 * address is still served.
 */
export const rpcProjectBudget: WindowLimit = { limit: 60_000, windowSeconds: 60 }

/** What the per-IP and per-prefix limits are divided by while a project's budget is spent. */
export const rpcSpentBudgetDivisor = 4

/** Upstream calls in flight at once in one API process, every project together. */
export const maxConcurrentRpcCallsPerProcess = 64

/**
 * Upstream calls in flight at once for one project in one API process. Fair
 * to a fresh visitor: it applies only to a caller (an IP key) that already
 * has a call in flight, so a caller with nothing in flight is served while
 * the process cap has room, however busy the project is.
 */
export const maxConcurrentRpcCallsPerProject = 16

/**
 * Upstream calls in flight at once from one IP key (an IPv4 address, an IPv6
 * /64), checked before the prefix and the project. Multiplied by `IP_LIMIT_SCALE`.
 */
export const maxConcurrentRpcCallsPerIp = 4

/**
 * Upstream calls in flight at once from one prefix (IPv4 /24, IPv6 /56),
 * checked after the IP. Multiplied by `IP_LIMIT_SCALE`.
 */
export const maxConcurrentRpcCallsPerPrefix = 16

/** Every limit of the proxy; tests pass smaller ones. */
export type RpcLimits = {
  ip: WindowLimit
  prefix: WindowLimit
  projectBudget: WindowLimit
  spentBudgetDivisor: number
  concurrentPerProcess: number
  concurrentPerProject: number
  concurrentPerIp: number
  concurrentPerPrefix: number
}

export const defaultRpcLimits: RpcLimits = {
  ip: rpcIpLimit,
  prefix: rpcPrefixLimit,
  projectBudget: rpcProjectBudget,
  spentBudgetDivisor: rpcSpentBudgetDivisor,
  concurrentPerProcess: maxConcurrentRpcCallsPerProcess,
  concurrentPerProject: maxConcurrentRpcCallsPerProject,
  concurrentPerIp: maxConcurrentRpcCallsPerIp,
  concurrentPerPrefix: maxConcurrentRpcCallsPerPrefix,
}

/** A key's count in its sliding window. */
type WindowCount = {
  /** The estimated count over the last `windowSeconds`, this call included when it was counted. */
  estimate: number
  /** The current fixed window's count, this call included when it was counted. */
  current: number
  /** The previous fixed window's count. */
  previous: number
  /** Milliseconds since the current fixed window started. */
  elapsedMs: number
  /** The current fixed window's start (ISO 8601). */
  windowStart: string
}

const CountRow = z.object({
  key: z.string(),
  start: z.coerce.date(),
  count: z.coerce.number(),
})

/**
 * Counts `calls` against each key with `bump` and reads the others without
 * counting, in one statement. Keys are fixed-window rows of `rate_limits`
 * (windows aligned on the API's clock); the answer estimates each key's
 * sliding window from its current and previous rows.
 */
async function countWindows(
  db: Db,
  calls: number,
  keys: readonly { key: string; windowSeconds: number; bump: boolean }[],
): Promise<Map<string, WindowCount>> {
  const now = Date.now()
  const windows = keys.map(({ key, windowSeconds, bump }) => {
    const length = windowSeconds * 1000
    const start = Math.floor(now / length) * length
    return { key, bump, length, start, previous: start - length }
  })
  const params: unknown[] = [calls]
  const param = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  const bumps = windows
    .filter((window) => window.bump)
    .map(
      (window) => `(${param(window.key)}, ${param(new Date(window.start))}::timestamptz, $1::int)`,
    )
  const reads = windows.flatMap((window) => [
    ...(window.bump ? [] : [[window.key, window.start] as const]),
    [window.key, window.previous] as const,
  ])
  const readList = reads
    .map(([key, start]) => `(${param(key)}, ${param(new Date(start))}::timestamptz)`)
    .join(', ')
  const rows = await db.query(
    `WITH hits AS (
       INSERT INTO rate_limits (key, window_start, count) VALUES ${bumps.join(', ')}
       ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + excluded.count
       RETURNING key, window_start, count
     )
     SELECT key, window_start AS start, count FROM hits
     UNION ALL
     SELECT key, window_start AS start, count FROM rate_limits
     WHERE (key, window_start) IN (${readList})`,
    params,
  )
  const found = new Map<string, number>()
  for (const raw of rows) {
    const row = CountRow.parse(raw)
    found.set(`${row.key} ${row.start.getTime()}`, row.count)
  }
  const counts = new Map<string, WindowCount>()
  for (const window of windows) {
    const current = found.get(`${window.key} ${window.start}`) ?? 0
    const previous = found.get(`${window.key} ${window.previous}`) ?? 0
    const elapsed = now - window.start
    counts.set(window.key, {
      estimate: slidingEstimate({ current, previous, elapsedMs: elapsed }, window.length),
      current,
      previous,
      elapsedMs: elapsed,
      windowStart: new Date(window.start).toISOString(),
    })
  }
  return counts
}

/**
 * A sliding window's count: the current fixed window's plus the previous one's
 * weighted by how much of it the sliding window still overlaps, rounded up
 * (less a rounding error), so a limit is never passed by a fraction.
 */
export function slidingEstimate(
  { current, previous, elapsedMs }: Pick<WindowCount, 'current' | 'previous' | 'elapsedMs'>,
  lengthMs: number,
): number {
  const overlap = Math.max(0, 1 - elapsedMs / lengthMs)
  return Math.ceil(current + previous * overlap - 1e-9)
}

/** Takes `calls` back off each key's current window: a refused call counts nowhere. */
async function uncount(
  db: Db,
  calls: number,
  keys: readonly { key: string; windowStart: string }[],
): Promise<void> {
  for (const { key, windowStart } of keys) {
    await db.query(
      `UPDATE rate_limits SET count = GREATEST(count - $1::int, 0)
       WHERE key = $2 AND window_start = $3::timestamptz`,
      [calls, key, windowStart],
    )
  }
}

/**
 * Whole seconds until `calls` more are allowed under `limit`, with `count`
 * read before they were counted: the smallest wait t with
 * `previous × (1 − (elapsed + t) / length) + current + calls ≤ limit`, or,
 * when the current window alone is over, past its end with the current
 * window's count as the previous one. At least 1.
 */
export function retryAfterSeconds(
  { current, previous, elapsedMs }: Pick<WindowCount, 'current' | 'previous' | 'elapsedMs'>,
  { calls, limit, windowSeconds }: { calls: number; limit: number; windowSeconds: number },
): number {
  const length = windowSeconds * 1000
  // The weight the previous window may keep: overlap ≤ room / previous.
  const waitFor = (room: number, weight: number, elapsed: number) =>
    weight <= 0 || room >= weight ? 0 : Math.max(0, length * (1 - room / weight) - elapsed)
  let waitMs: number
  if (calls > limit) {
    // Never allowed as one request: after two windows at least nothing else counts.
    waitMs = 2 * length - elapsedMs
  } else if (current + calls <= limit) {
    waitMs = waitFor(limit - current - calls, previous, elapsedMs)
  } else {
    waitMs = length - elapsedMs + waitFor(limit - calls, current, 0)
  }
  // Less a rounding error, as in the estimate: 60 s × (1 − 2/3) is 20 s, not 21.
  return Math.max(1, Math.ceil(waitMs / 1000 - 1e-9))
}

/** Why a call was refused, for the 429's message and `Retry-After`. */
export type RpcLimitRefusal = {
  refused: true
  /** `address` (the per-IP limit) or `network` (the per-prefix limit). */
  bucket: 'address' | 'network'
  limit: number
  windowSeconds: number
  retryAfterSeconds: number
  /** Whether the project's budget was spent, which tightened the limit. */
  tightened: boolean
}

/**
 * Counts `calls` from a client against its per-IP limit, then, when that
 * allowed them, its per-prefix limit, both tightened while the project's
 * budget is spent. Refused calls count against nothing: an abuser over its
 * own limit spends none of its neighbours' prefix limit, and a caller who
 * waits `Retry-After` is served.
 */
export async function checkRpcCallLimits(
  db: Db,
  {
    projectId,
    clientIp,
    clientPrefix,
    calls,
    limits,
    ipLimitScale,
  }: {
    projectId: string
    clientIp: string
    clientPrefix: string
    calls: number
    limits: RpcLimits
    ipLimitScale: number
  },
): Promise<RpcLimitRefusal | { refused: false }> {
  const ipKey = `rpc-ip:${clientIp}`
  const prefixKey = `rpc-prefix:${clientPrefix}`
  const projectKey = `rpc-project:${projectId}`
  const first = await countWindows(db, calls, [
    { key: ipKey, windowSeconds: limits.ip.windowSeconds, bump: true },
    { key: projectKey, windowSeconds: limits.projectBudget.windowSeconds, bump: false },
  ])
  const spent = (first.get(projectKey)?.estimate ?? 0) >= limits.projectBudget.limit
  const divisor = spent ? limits.spentBudgetDivisor : 1
  const buckets = [
    { bucket: 'address', key: ipKey, rule: limits.ip },
    { bucket: 'network', key: prefixKey, rule: limits.prefix },
  ] as const
  const counted: { key: string; windowStart: string }[] = []
  for (const { bucket, key, rule } of buckets) {
    const count =
      key === ipKey
        ? first.get(key)
        : (
            await countWindows(db, calls, [{ key, windowSeconds: rule.windowSeconds, bump: true }])
          ).get(key)
    if (count === undefined) continue
    counted.push({ key, windowStart: count.windowStart })
    const limit = Math.max(1, Math.floor((rule.limit * ipLimitScale) / divisor))
    if (count.estimate > limit) {
      await uncount(db, calls, counted)
      return {
        refused: true,
        bucket,
        limit,
        windowSeconds: rule.windowSeconds,
        retryAfterSeconds: retryAfterSeconds(
          { ...count, current: count.current - calls },
          { calls, limit, windowSeconds: rule.windowSeconds },
        ),
        tightened: spent,
      }
    }
  }
  return { refused: false }
}

/**
 * Counts `calls` the proxy is about to forward against the project's shared
 * budget. Past the budget, counts them as overflow for the operator
 * (`rpc_budget_counts`, per UTC day); resolves to true for the one call of a
 * window that found the budget spent first (it logs the warning), across
 * every replica.
 */
export async function countProjectBudget(
  db: Db,
  { projectId, calls, limits }: { projectId: string; calls: number; limits: RpcLimits },
): Promise<{ firstInWindow: boolean }> {
  const key = `rpc-project:${projectId}`
  const budget = limits.projectBudget
  const counts = await countWindows(db, calls, [
    { key, windowSeconds: budget.windowSeconds, bump: true },
  ])
  const count = counts.get(key)
  if (count === undefined || count.estimate < budget.limit) return { firstInWindow: false }
  const overflow = Math.min(calls, count.estimate - budget.limit)
  const [row] = await db.query<{ first: number }>(
    `WITH mark AS (
       INSERT INTO rate_limits (key, window_start, count) VALUES ($1, $2::timestamptz, 1)
       ON CONFLICT (key, window_start) DO NOTHING
       RETURNING 1
     ),
     counted AS (
       INSERT INTO rpc_budget_counts (project_id, day, windows_spent, overflow_calls)
       SELECT $3, (now() AT TIME ZONE 'UTC')::date, (SELECT count(*) FROM mark)::int, $4::bigint
       ON CONFLICT (project_id, day) DO UPDATE SET
         windows_spent = rpc_budget_counts.windows_spent + excluded.windows_spent,
         overflow_calls = rpc_budget_counts.overflow_calls + excluded.overflow_calls
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM mark)::int AS first, (SELECT count(*) FROM counted)::int AS counted`,
    [`rpc-budget-spent:${projectId}`, count.windowStart, projectId, overflow],
  )
  return { firstInWindow: Number(row?.first ?? 0) > 0 }
}

/** Why a call found no free upstream slot. */
export type GateRefusal = 'process' | 'address' | 'network' | 'project'

/** Who is calling, for the in-flight caps. */
export type GateCaller = { projectId: string; clientIp: string; clientPrefix: string }

/**
 * In-memory caps on upstream calls in flight, per API process (one app), per
 * IP key, per prefix and per project, checked in that order; the per-project
 * cap applies only to an IP key that already has a call in flight
 * ({@link maxConcurrentRpcCallsPerProject}). `enter` gives a `leave` to call
 * once the answer is read, or which cap is full.
 */
export function createCallGate({
  concurrentPerProcess,
  concurrentPerProject,
  concurrentPerIp,
  concurrentPerPrefix,
}: Pick<
  RpcLimits,
  'concurrentPerProcess' | 'concurrentPerProject' | 'concurrentPerIp' | 'concurrentPerPrefix'
>) {
  let total = 0
  const byProject = new Map<string, number>()
  const byIp = new Map<string, number>()
  const byPrefix = new Map<string, number>()
  const add = (counts: Map<string, number>, key: string, by: number) => {
    const now = (counts.get(key) ?? 0) + by
    if (now <= 0) counts.delete(key)
    else counts.set(key, now)
  }
  return {
    enter({
      projectId,
      clientIp,
      clientPrefix,
    }: GateCaller): { leave: () => void } | { full: GateRefusal } {
      const fromIp = byIp.get(clientIp) ?? 0
      if (total >= concurrentPerProcess) return { full: 'process' }
      if (fromIp >= concurrentPerIp) return { full: 'address' }
      if ((byPrefix.get(clientPrefix) ?? 0) >= concurrentPerPrefix) return { full: 'network' }
      if (fromIp > 0 && (byProject.get(projectId) ?? 0) >= concurrentPerProject) {
        return { full: 'project' }
      }
      const move = (by: number) => {
        total += by
        add(byProject, projectId, by)
        add(byIp, clientIp, by)
        add(byPrefix, clientPrefix, by)
      }
      move(1)
      let left = false
      return {
        leave() {
          if (left) return
          left = true
          move(-1)
        },
      }
    },
  }
}
