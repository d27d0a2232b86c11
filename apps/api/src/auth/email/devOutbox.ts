/**
 * `GET /dev/outbox/<token>`: the mail the dev transport recorded (when
 * `SMTP_URL` is unset), newest first, as a small HTML page or as JSON
 * (`?format=json`). Mounted only with `DEV_OUTBOX=true`: it shows login
 * codes, so it is for a developer's own machine, never for a deployment
 * (production refuses `DEV_OUTBOX`). The token (`DEV_OUTBOX_TOKEN`, random
 * at each start unless given) keeps it from any page that only knows the
 * address (SECURITY.md 25): `/dev/outbox` itself and any other token are
 * unknown paths (404).
 */
import { timingSafeEqual } from 'node:crypto'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../../db/db.js'
import type { Config } from '../../http/config.js'
import { escapeHtml } from '../../http/pages.js'
import { parseInput, readQuery } from '../../http/request.js'
import { devOutboxSize, type OutboxMail, readDevOutbox } from './mailer.js'

const OutboxQuery = z.strictObject({ format: z.enum(['html', 'json']).default('html') })

/** Where the dev outbox is served: `/dev/outbox/<devOutboxToken>`. */
export function devOutboxPath(config: Pick<Config, 'devOutboxToken'>): string {
  return `/dev/outbox/${config.devOutboxToken}`
}

/** Whether `given` is `token`, in time that does not depend on where they differ. */
function isToken(given: string, token: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function createDevOutboxRoutes({
  db,
  token,
  smtpConfigured,
}: {
  db: Db
  /** The last segment of the outbox's path (`config.devOutboxToken`). */
  token: string
  /** With `SMTP_URL` set, mail goes out by SMTP and the outbox stays empty; the page says so. */
  smtpConfigured: boolean
}): Hono {
  const app = new Hono()

  app.get('/dev/outbox/:token', async (c, next) => {
    // Any other token is an unknown path, answered by the app's 404.
    if (!isToken(c.req.param('token'), token)) return next()
    const { format } = parseInput(OutboxQuery, readQuery(c), 'query')
    const messages = await readDevOutbox(db)
    c.header('Cache-Control', 'no-store')
    c.header('Referrer-Policy', 'no-referrer')
    if (format === 'json') return c.json({ messages })
    c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
    return c.html(outboxPage(messages, smtpConfigured))
  })

  return app
}

function outboxPage(messages: OutboxMail[], smtpConfigured: boolean): string {
  const note = smtpConfigured
    ? '<p>SMTP_URL is set: mail goes out by SMTP and is not recorded here.</p>'
    : `<p>The last ${devOutboxSize} mails the API would have sent (SMTP_URL is unset). Newest first. <a href="?format=json">JSON</a></p>`
  const items =
    messages.length === 0
      ? '<p>No mail yet.</p>'
      : messages
          .map(
            (mail) => `<article>
  <h2>${escapeHtml(mail.subject)}</h2>
  <p class="meta">To ${escapeHtml(mail.to)} · from ${escapeHtml(mail.from)} · <time datetime="${mail.sentAt}">${mail.sentAt}</time></p>
  <pre>${escapeHtml(mail.text)}</pre>
</article>`,
          )
          .join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Porthole dev outbox</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; }
  article { border: 1px solid #ccc; border-radius: 8px; padding: 0 1rem; margin: 1rem 0; }
  h2 { font-size: 1.1rem; }
  .meta { color: #555; }
  pre { white-space: pre-wrap; font-size: 1rem; }
</style>
</head>
<body>
<h1>Dev outbox</h1>
${note}
${items}
</body>
</html>
`
}
