import type { AnalyticsConfig } from '@porthole/protocol/Api'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { consumeRateLimit, enforceRateLimit, scaled } from '../db/rateLimit.js'
import type { Config } from '../http/config.js'
import { HttpError } from '../http/errors.js'
import {
  clientIp,
  clientPrefix,
  commonQuery,
  errorBody,
  parseInput,
  readJsonBody,
} from '../http/request.js'
import { readProjectQuery } from '../projects/projects.js'

/**
 * SPEC 9: error reports, at most 5 per 60 seconds per client and project. The
 * client id is the caller's choice, so this is only an extra bucket: the
 * per-IP and per-prefix limits below hold whatever it says (SECURITY.md 22).
 */
export const errorReportLimit = { limit: 5, windowSeconds: 60 } as const

/**
 * `POST /e` per IP (an IPv4 address, an IPv6 /64), events and error reports
 * together, any project: a visitor's widget sends a few a minute. Multiplied
 * by `IP_LIMIT_SCALE`.
 */
export const eventIpLimit = { limit: 120, windowSeconds: 60 } as const

/** `POST /e` per prefix (IPv4 /24, IPv6 /56). Multiplied by `IP_LIMIT_SCALE`. */
export const eventPrefixLimit = { limit: 480, windowSeconds: 60 } as const

/** Largest `POST /e` body accepted. */
export const maxEventBytes = 32 * 1024

const EventQuery = z.strictObject(commonQuery)

const PropertyKey = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a short identifier')
const PropertyValue = z.union([z.string().max(1024), z.number(), z.boolean(), z.null()])

/** The body of `POST /e`: one analytics event or error report. */
export const EventBody = z.strictObject({
  eventId: z.uuid(),
  url: z.url({ protocol: /^https?$/ }).max(2048),
  domain: z
    .string()
    .max(260)
    .regex(/^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/, 'must be a host name'),
  /** Milliseconds since the epoch, as the client saw it. */
  timestamp: z.number().int().nonnegative().max(8.64e15),
  props: z.strictObject({
    /** `error` for error reports (rate-limited); `track` etc. for analytics. */
    type: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be a short identifier'),
    /**
     * An event's name as the widget writes them (`MODAL_OPEN`): upper-case
     * letters, digits and underscores. No free text: the names are printed to
     * an operator's terminal by `stats` (red team, issue 16).
     */
    event: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be an event name such as MODAL_OPEN'),
    errorType: z.string().max(256).optional(),
    errorMessage: z.string().max(4096).optional(),
    stackTrace: z.string().max(16_384).optional(),
    /** Optional flat event properties (at most 32). */
    properties: z
      .unknown()
      // A record would silently drop a `__proto__` key: refuse it like any unknown key.
      .refine(
        (value) =>
          typeof value !== 'object' || value === null || !Object.hasOwn(value, '__proto__'),
        'must not contain a __proto__ key',
      )
      .pipe(
        z
          .record(PropertyKey, PropertyValue)
          .refine((value) => Object.keys(value).length <= 32, 'at most 32 properties'),
      )
      .optional(),
  }),
})
export type EventBody = z.infer<typeof EventBody>

/** `GET /getAnalyticsConfig` and `POST /e` (analytics events and error reports). */
export function createAnalyticsRoutes({
  db,
  config,
}: {
  db: Db
  config: Pick<Config, 'ipLimitScale'>
}): Hono {
  const app = new Hono()

  app.get('/getAnalyticsConfig', async (c) => {
    const { project } = await readProjectQuery(c, db, EventQuery)
    const body: z.infer<typeof AnalyticsConfig> = { isAnalyticsEnabled: project.features.analytics }
    return c.json(body)
  })

  app.post(
    '/e',
    bodyLimit({
      maxSize: maxEventBytes,
      onError: (c) =>
        c.json(
          errorBody('payload_too_large', `The event body may be at most ${maxEventBytes} bytes`),
          413,
        ),
    }),
    async (c) => {
      const { project, query } = await readProjectQuery(c, db, EventQuery)
      const event = parseInput(EventBody, await readJsonBody(c), 'body')
      const isError = event.props.type === 'error'
      if (!isError && !project.features.analytics) {
        throw new HttpError(
          403,
          'analytics_disabled',
          `Analytics is disabled for project '${project.id}' (see GET /getAnalyticsConfig)`,
        )
      }
      // Per IP, then per prefix, before the caller-chosen client's bucket.
      await enforceRateLimit(db, {
        key: `event-ip:${clientIp(c)}`,
        ...scaled(eventIpLimit, config.ipLimitScale),
        message: 'Too many events from this address',
      })
      await enforceRateLimit(db, {
        key: `event-prefix:${clientPrefix(c)}`,
        ...scaled(eventPrefixLimit, config.ipLimitScale),
        message: 'Too many events from this network',
      })
      if (isError) {
        const result = await consumeRateLimit(db, {
          // Without a client id, the address is the client: no bucket shared by strangers.
          key: `error-report:${project.id}:${query.clientId ?? `ip:${clientIp(c)}`}`,
          ...errorReportLimit,
        })
        if (!result.allowed) {
          throw new HttpError(
            429,
            'rate_limited',
            `Too many error reports: at most ${errorReportLimit.limit} every ${errorReportLimit.windowSeconds} seconds per client. Try again in ${result.retryAfterSeconds} seconds.`,
            { headers: { 'Retry-After': String(result.retryAfterSeconds) } },
          )
        }
      }
      await db.query(
        `INSERT INTO analytics_events
           (project_id, event_id, client_id, sdk_type, sdk_version, url, domain, client_timestamp, type, event, props)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)
         ON CONFLICT (project_id, event_id) DO NOTHING`,
        [
          project.id,
          event.eventId,
          query.clientId ?? null,
          query.st ?? null,
          query.sv ?? null,
          event.url,
          event.domain,
          event.timestamp,
          event.props.type,
          event.props.event,
          JSON.stringify(event.props),
        ],
      )
      return c.json({ accepted: true }, 202)
    },
  )

  return app
}
