/**
 * A real SMTP server that catches mail for the tests, in memory.
 *
 * `createMailCatcher()` listens on 127.0.0.1 (a free port unless told), takes
 * any message without authentication or TLS, parses it with mailparser and
 * keeps it. A test points the API's SMTP settings at it, then waits for the
 * mail it expects with `waitFor()` and reads the code with `extractCode()`.
 * Mail is stored before the server answers 250, so once a send has resolved
 * the message is already in `messages()`.
 */
import { createServer, type Server } from 'node:http'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server'

export type CreateMailCatcherOptions = {
  /** Defaults to 0: a free port, read back from `port`. */
  port?: number
  /** Defaults to 127.0.0.1. */
  host?: string
}

export type CaughtMail = {
  /** The From header's address; the envelope sender when the header has none. */
  from: string
  /** The envelope recipients (RCPT TO, so Cc and Bcc included), in order. */
  to: string[]
  /** Decoded; empty when the mail has none. */
  subject: string
  /**
   * The text part as mailparser decodes it (a single-part mail keeps the
   * line break that ends its body); empty when the mail has none.
   */
  text: string
  /** The HTML part, when the mail has one. */
  html?: string
  /** The Date header; the time the mail was caught when it has none. */
  date: Date
  /** Every header by its lower-case name, decoded and flattened to a string. */
  headers: Record<string, string>
}

export type WaitForOptions = {
  /** Milliseconds; defaults to 10 000. */
  timeout?: number
}

export type MailCatcher = {
  readonly port: number
  readonly host: string
  /** The mail caught since the start or the last `clear()`, oldest first. */
  messages(): CaughtMail[]
  /**
   * The first mail, already caught or still to come, that `predicate`
   * accepts. Rejects after the timeout, naming the subjects caught, or when
   * the catcher is closed first.
   */
  waitFor(predicate: (mail: CaughtMail) => boolean, options?: WaitForOptions): Promise<CaughtMail>
  /** Forgets the mail caught so far; pending `waitFor()` calls go on waiting. */
  clear(): void
  /** Stops the server and rejects pending `waitFor()` calls; resolves once the port is free. */
  close(): Promise<void>
}

const defaultTimeout = 10_000
const maxSize = 1024 * 1024
/** How long `close()` lets a client that keeps its connection open finish. */
const closeTimeout = 1_000

type Waiter = {
  predicate: (mail: CaughtMail) => boolean
  resolve: (mail: CaughtMail) => void
  reject: (error: Error) => void
}

export async function createMailCatcher(
  options: CreateMailCatcherOptions = {},
): Promise<MailCatcher> {
  const { port = 0, host = '127.0.0.1' } = options
  let caught: CaughtMail[] = []
  const waiters = new Set<Waiter>()
  let closed: Promise<void> | undefined

  // A waiter whose predicate accepts (or throws on) the mail leaves the set.
  const offer = (waiter: Waiter, mail: CaughtMail) => {
    let matches: boolean
    try {
      matches = waiter.predicate(mail)
    } catch (error) {
      waiters.delete(waiter)
      waiter.reject(error instanceof Error ? error : new Error(String(error)))
      return true
    }
    if (matches) {
      waiters.delete(waiter)
      waiter.resolve(mail)
    }
    return matches
  }

  const server = new SMTPServer({
    authOptional: true,
    // Plain text only: a local test server has no certificate worth presenting.
    disabledCommands: ['STARTTLS'],
    size: maxSize,
    disableReverseLookup: true,
    closeTimeout,
    logger: false,
    onData(stream, session, callback) {
      catchMail(stream, session).then(
        (mail) => {
          caught.push(mail)
          for (const waiter of [...waiters]) offer(waiter, mail)
          callback()
        },
        (error: Error) => callback(error),
      )
    },
  })

  const address = await new Promise<{ port: number }>((resolve, reject) => {
    // Before listening an error means the port is not ours; after, it is one
    // client's broken connection, which does not concern the others.
    let listening = false
    server.on('error', (error) => {
      if (!listening) reject(error)
    })
    server.listen(port, host, () => {
      listening = true
      const bound = server.server.address()
      if (bound === null || typeof bound === 'string') {
        server.close()
        reject(new Error(`mail catcher: no TCP address (got ${String(bound)})`))
      } else resolve(bound)
    })
  })

  return {
    port: address.port,
    host,
    messages: () => [...caught],
    waitFor(predicate, { timeout = defaultTimeout } = {}) {
      return new Promise<CaughtMail>((resolve, reject) => {
        if (closed) return reject(new Error('mail catcher: closed'))
        let timer: NodeJS.Timeout | undefined
        const waiter: Waiter = {
          predicate,
          resolve: (mail) => {
            clearTimeout(timer)
            resolve(mail)
          },
          reject: (error) => {
            clearTimeout(timer)
            reject(error)
          },
        }
        for (const mail of caught) if (offer(waiter, mail)) return
        waiters.add(waiter)
        timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`mail catcher: no mail matched within ${timeout} ms; ${seen(caught)}`))
        }, timeout)
      })
    },
    clear() {
      caught = []
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const waiter of [...waiters]) {
          waiters.delete(waiter)
          waiter.reject(new Error('mail catcher: closed before a mail matched'))
        }
        server.close(() => resolve())
      })
      return closed
    },
  }
}

/**
 * The first standalone run of exactly `digits` digits in `text` (one that no
 * other letter or digit touches), or undefined.
 */
export function extractCode(text: string, digits = 6): string | undefined {
  if (!Number.isSafeInteger(digits) || digits < 1) {
    throw new RangeError(`extractCode: digits must be a positive integer, got ${digits}`)
  }
  return new RegExp(`(?<![\\p{L}\\p{N}])\\d{${digits}}(?![\\p{L}\\p{N}])`, 'u').exec(text)?.[0]
}

async function catchMail(
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
): Promise<CaughtMail> {
  let parsed: ParsedMail
  try {
    parsed = await simpleParser(stream)
  } catch (error) {
    // Drain what the parser left, or the client never gets its reply.
    await drain(stream)
    throw error
  }
  if (stream.sizeExceeded) {
    throw Object.assign(new Error(`Message exceeds the maximum size of ${maxSize} bytes`), {
      responseCode: 552,
    })
  }
  const { mailFrom, rcptTo } = session.envelope
  return {
    from: parsed.from?.value[0]?.address ?? (mailFrom ? mailFrom.address : ''),
    to: rcptTo.map((recipient) => recipient.address),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    ...(parsed.html === false ? {} : { html: parsed.html }),
    date: parsed.date ?? new Date(),
    headers: Object.fromEntries(
      [...parsed.headers].map(([name, value]) => [name, headerToString(value)]),
    ),
  }
}

function drain(stream: SMTPServerDataStream): Promise<void> {
  if (stream.readableEnded) return Promise.resolve()
  return new Promise((resolve) => {
    stream.once('end', resolve)
    stream.resume()
  })
}

/**
 * The caught mail as JSON (`GET /messages`), oldest first, for tests in other
 * processes (read with stackMail.ts). Listen on it yourself.
 */
export function createMailListing(catcher: MailCatcher): Server {
  return createServer((request, response) => {
    if (request.method !== 'GET' || !request.url?.startsWith('/messages')) {
      response.writeHead(404).end()
      return
    }
    const messages = catcher
      .messages()
      .map(({ from, to, subject, text, date }) => ({ from, to, subject, text, date }))
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(messages))
  })
}

function headerToString(value: unknown): string {
  if (typeof value === 'string') return value
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(headerToString).join(', ')
  if (typeof value === 'object' && value !== null) {
    // An address header keeps its text; a structured one (Content-Type) its value.
    if ('text' in value && typeof value.text === 'string') return value.text
    if ('value' in value && typeof value.value === 'string') return value.value
  }
  return String(value)
}

function seen(mail: readonly CaughtMail[]): string {
  if (mail.length === 0) return 'no mail caught'
  const subjects = mail.map((item) => JSON.stringify(item.subject))
  return `subjects caught: ${subjects.join(', ')}`
}
