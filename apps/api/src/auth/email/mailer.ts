/**
 * Outgoing mail: SMTP through nodemailer when `SMTP_URL` is set, otherwise
 * the dev outbox, a table the development server shows at `GET /dev/outbox/<token>`
 * (never under `PORTHOLE_ENV=production`, where mail without `SMTP_URL`
 * fails).
 *
 * Neither transport logs anything: a mail holds a login code and an address
 * (SECURITY.md 11). A failed send is reported without either.
 */
import nodemailer from 'nodemailer'
import { z } from 'zod'
import type { Db } from '../../db/db.js'
import type { Config } from '../../http/config.js'
import { MailError } from '../../http/errors.js'

export type Mail = {
  to: string
  subject: string
  text: string
}

export type Mailer = {
  /** Where mail goes: `smtp`, the dev outbox, or nowhere (production without `SMTP_URL`). */
  readonly kind: 'smtp' | 'dev-outbox' | 'none'
  /** Sends (or records) one mail; throws a `MailError` naming no address and no content. */
  send(mail: Mail): Promise<void>
}

/** How many mails the dev outbox keeps (and `GET /dev/outbox/<token>` shows). */
export const devOutboxSize = 20
/** How long an SMTP send may take, connection included. */
export const smtpTimeoutMs = 15_000

/**
 * SMTP to `config.smtpUrl`; when it is unset, the dev outbox in `db`, or
 * under `PORTHOLE_ENV=production` a mailer whose every send fails (the
 * server refuses to start while a project has email login and no SMTP; a
 * project given email login later gets 502s, never a code in a table).
 */
export function createMailer({
  config,
  db,
}: {
  config: Pick<Config, 'smtpUrl' | 'mailFrom'> & Partial<Pick<Config, 'portholeEnv'>>
  db: Db
}): Mailer {
  const from = config.mailFrom
  if (config.smtpUrl === undefined && config.portholeEnv === 'production') {
    return {
      kind: 'none',
      async send() {
        throw new MailError('No mail transport: SMTP_URL is unset (PORTHOLE_ENV=production)')
      },
    }
  }
  if (config.smtpUrl === undefined) {
    return {
      kind: 'dev-outbox',
      async send(mail) {
        await db.transaction(async (tx) => {
          await tx.query(
            'INSERT INTO dev_outbox (sender, recipient, subject, body) VALUES ($1, $2, $3, $4)',
            [from, mail.to, mail.subject, mail.text],
          )
          await tx.query(
            `DELETE FROM dev_outbox
             WHERE id NOT IN (SELECT id FROM dev_outbox ORDER BY id DESC LIMIT $1)`,
            [devOutboxSize],
          )
        })
      },
    }
  }
  const transport = nodemailer.createTransport(config.smtpUrl, {
    logger: false,
    debug: false,
    connectionTimeout: smtpTimeoutMs,
    greetingTimeout: smtpTimeoutMs,
    socketTimeout: smtpTimeoutMs,
  })
  return {
    kind: 'smtp',
    async send(mail) {
      try {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text })
      } catch (error) {
        // nodemailer's messages may quote the recipient: keep only its codes.
        const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown }
        const reason = [code, responseCode].filter((part) => part !== undefined).join(' ')
        throw new MailError(`SMTP send failed${reason ? ` (${reason})` : ''}`)
      }
    },
  }
}

const OutboxRow = z.object({
  id: z.coerce.number(),
  sender: z.string(),
  recipient: z.string(),
  subject: z.string(),
  body: z.string(),
  sent_at: z.coerce.date(),
})

export const OutboxMail = z.object({
  id: z.number(),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  sentAt: z.string(),
})
export type OutboxMail = z.infer<typeof OutboxMail>

/** The dev outbox, newest first (at most `devOutboxSize`). */
export async function readDevOutbox(db: Db): Promise<OutboxMail[]> {
  const rows = await db.query(
    `SELECT id, sender, recipient, subject, body, sent_at FROM dev_outbox
     ORDER BY id DESC LIMIT $1`,
    [devOutboxSize],
  )
  return rows.map((row) => {
    const mail = OutboxRow.parse(row)
    return {
      id: mail.id,
      from: mail.sender,
      to: mail.recipient,
      subject: mail.subject,
      text: mail.body,
      sentAt: mail.sent_at.toISOString(),
    }
  })
}
