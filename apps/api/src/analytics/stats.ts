/**
 * What a site owner learns from the widget's events (`analytics_events`):
 * counts per event and per UTC day, the error reports, and the connect
 * funnel (widget clients that opened the modal → chose a wallet →
 * connected). `npm run project -- stats` and the admin page print it.
 */
import { z } from 'zod'
import type { Queryable } from '../db/db.js'

export type ProjectStats = {
  id: string
  /** UTC days counted back from today's, today included. */
  days: number
  /** Per event, oldest day first; days with no event are absent. */
  daily: { day: string; event: string; count: number }[]
  /** Per event over the span, most frequent first. */
  totals: { event: string; count: number }[]
  errorReports: number
  /** Distinct widget clients (their client id; an event without one counts alone). */
  funnel: { opened: number; choseWallet: number; connected: number }
}

const count = z.coerce.number().int().nonnegative()
const DailyRow = z.object({ day: z.string(), event: z.string(), count })
const FunnelRow = z.object({
  opened: count,
  chose_wallet: count,
  connected: count,
  error_reports: count,
})

/** The events of `projectId` over the last `days` UTC days. */
export async function projectStats(
  db: Queryable,
  projectId: string,
  days: number,
): Promise<ProjectStats> {
  const since = `received_at >= ((now() AT TIME ZONE 'UTC')::date - ($2::int - 1)) AT TIME ZONE 'UTC'`
  const daily = z.array(DailyRow).parse(
    await db.query(
      `SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, event, count(*) AS count
       FROM analytics_events
       WHERE project_id = $1 AND type = 'track' AND ${since}
       GROUP BY 1, 2 ORDER BY 1, 2`,
      [projectId, days],
    ),
  )
  const client = `coalesce(client_id, event_id::text)`
  const [funnel] = z.array(FunnelRow).parse(
    await db.query(
      `SELECT count(DISTINCT ${client}) FILTER (WHERE type = 'track' AND event = 'MODAL_OPEN') AS opened,
              count(DISTINCT ${client}) FILTER (WHERE type = 'track' AND event = 'SELECT_WALLET') AS chose_wallet,
              count(DISTINCT ${client}) FILTER (WHERE type = 'track' AND event = 'CONNECT_SUCCESS') AS connected,
              count(*) FILTER (WHERE type = 'error') AS error_reports
       FROM analytics_events
       WHERE project_id = $1 AND ${since}`,
      [projectId, days],
    ),
  )
  const totals = new Map<string, number>()
  for (const row of daily) totals.set(row.event, (totals.get(row.event) ?? 0) + row.count)
  return {
    id: projectId,
    days,
    daily,
    totals: [...totals]
      .map(([event, total]) => ({ event, count: total }))
      .sort((a, b) => b.count - a.count || a.event.localeCompare(b.event)),
    errorReports: funnel?.error_reports ?? 0,
    funnel: {
      opened: funnel?.opened ?? 0,
      choseWallet: funnel?.chose_wallet ?? 0,
      connected: funnel?.connected ?? 0,
    },
  }
}
