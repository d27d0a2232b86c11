import { createServer } from 'node:net'
import { createTransport } from 'nodemailer'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { type CaughtMail, createMailCatcher, extractCode, type MailCatcher } from './mailCatcher.ts'

const sender = 'Porthole <no-reply@porthole.test>'

function send(
  catcher: MailCatcher,
  mail: { to: string | string[]; subject: string; text?: string; html?: string },
) {
  const transport = createTransport({
    host: '127.0.0.1',
    port: catcher.port,
    secure: false,
    ignoreTLS: true,
  })
  return transport.sendMail({ from: sender, text: '', ...mail })
}

const bySubject = (subject: string) => (mail: CaughtMail) => mail.subject === subject

describe('createMailCatcher', () => {
  let catcher: MailCatcher
  beforeEach(async () => {
    catcher = await createMailCatcher()
  })
  afterEach(async () => {
    await catcher.close()
  })

  test('listens on a free port of 127.0.0.1', () => {
    expect(catcher.host).toBe('127.0.0.1')
    expect(catcher.port).toBeGreaterThan(0)
    expect(catcher.messages()).toEqual([])
  })

  test('catches a mail with its sender, recipient, subject, text and html', async () => {
    const info = await send(catcher, {
      to: 'alice@example.com',
      subject: 'Your Porthole code',
      text: 'Your code is 482910.\nIt expires in 10 minutes.',
      html: '<p>Your code is <b>482910</b>.</p>',
    })
    expect(info.rejected).toEqual([])

    // Caught before the server answered, so no wait is needed.
    const [mail, ...rest] = catcher.messages()
    expect(rest).toEqual([])
    expect(mail).toMatchObject({
      from: 'no-reply@porthole.test',
      to: ['alice@example.com'],
      subject: 'Your Porthole code',
      text: 'Your code is 482910.\nIt expires in 10 minutes.',
      html: '<p>Your code is <b>482910</b>.</p>',
    })
    expect(mail?.date).toBeInstanceOf(Date)
    expect(mail?.headers).toMatchObject({
      from: '"Porthole" <no-reply@porthole.test>',
      to: 'alice@example.com',
      subject: 'Your Porthole code',
      'message-id': info.messageId,
      date: mail?.date.toISOString(),
    })
  })

  test('leaves html out of a text-only mail', async () => {
    await send(catcher, { to: 'alice@example.com', subject: 'Plain', text: 'Hello' })
    const mail = await catcher.waitFor(bySubject('Plain'))
    expect(mail.text).toBe('Hello\n')
    expect(mail).not.toHaveProperty('html')
  })

  test('lists every recipient of a mail sent to two', async () => {
    await send(catcher, {
      to: ['alice@example.com', 'bob@example.com'],
      subject: 'Two of you',
      text: 'Hi both',
    })
    const mail = await catcher.waitFor(bySubject('Two of you'))
    expect(mail.to).toEqual(['alice@example.com', 'bob@example.com'])
    expect(catcher.messages()).toHaveLength(1)
  })

  test('refuses a mail over 1 MB and keeps nothing of it', async () => {
    const text = 'x'.repeat(1024 * 1024 + 1)
    await expect(send(catcher, { to: 'a@example.com', subject: 'Huge', text })).rejects.toThrow(
      /552 Message exceeds the maximum size of 1048576 bytes/,
    )
    expect(catcher.messages()).toEqual([])
  })

  test('keeps mail in the order it arrived, until cleared', async () => {
    await send(catcher, { to: 'a@example.com', subject: 'First' })
    await send(catcher, { to: 'b@example.com', subject: 'Second' })
    expect(catcher.messages().map((mail) => mail.subject)).toEqual(['First', 'Second'])

    catcher.clear()
    expect(catcher.messages()).toEqual([])
    await send(catcher, { to: 'c@example.com', subject: 'Third' })
    expect(catcher.messages().map((mail) => mail.subject)).toEqual(['Third'])
  })

  test('waitFor resolves with a mail sent after the call', async () => {
    const waiting = catcher.waitFor((mail) => mail.to.includes('carol@example.com'))
    await send(catcher, { to: 'dave@example.com', subject: 'Not for Carol' })
    await send(catcher, { to: 'carol@example.com', subject: 'For Carol', text: 'Code 123456' })
    const mail = await waiting
    expect(mail.subject).toBe('For Carol')
    expect(extractCode(mail.text)).toBe('123456')
  })

  test('waitFor resolves with the first matching mail already caught', async () => {
    await send(catcher, { to: 'carol@example.com', subject: 'Old code', text: 'Code 111111' })
    await send(catcher, { to: 'carol@example.com', subject: 'New code', text: 'Code 222222' })
    const mail = await catcher.waitFor((mail) => mail.subject.endsWith('code'))
    expect(mail.subject).toBe('Old code')
  })

  test('waitFor rejects after its timeout, naming the subjects caught', async () => {
    await send(catcher, { to: 'a@example.com', subject: 'Welcome' })
    await send(catcher, { to: 'a@example.com', subject: 'Your "code"' })
    await expect(catcher.waitFor(bySubject('Missing'), { timeout: 100 })).rejects.toThrow(
      'mail catcher: no mail matched within 100 ms; subjects caught: "Welcome", "Your \\"code\\""',
    )
  })

  test('waitFor says when it timed out with no mail caught at all', async () => {
    await expect(catcher.waitFor(() => true, { timeout: 50 })).rejects.toThrow(
      'mail catcher: no mail matched within 50 ms; no mail caught',
    )
  })

  test('waitFor rejects with the error its predicate throws', async () => {
    await send(catcher, { to: 'a@example.com', subject: 'Anything' })
    await expect(
      catcher.waitFor(() => {
        throw new Error('bad predicate')
      }),
    ).rejects.toThrow('bad predicate')
  })

  test('waitFor rejects when the catcher closes first', async () => {
    const waiting = catcher.waitFor(bySubject('Never'))
    await catcher.close()
    await expect(waiting).rejects.toThrow('mail catcher: closed before a mail matched')
    await expect(catcher.waitFor(() => true)).rejects.toThrow('mail catcher: closed')
  })

  test('refuses a port that is already taken', async () => {
    await expect(createMailCatcher({ port: catcher.port })).rejects.toThrow(/EADDRINUSE/)
  })

  test('close frees the port', async () => {
    const { port } = catcher
    await catcher.close()
    await expect(send(catcher, { to: 'a@example.com', subject: 'Too late' })).rejects.toThrow(
      /ECONNREFUSED/,
    )

    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', resolve)
    })
    await new Promise((resolve) => server.close(resolve))

    // A second close has nothing left to wait for.
    await catcher.close()
  })
})

describe('extractCode', () => {
  test.each([
    { text: 'Your code is 123456.', digits: undefined, code: '123456' },
    { text: '123456', digits: undefined, code: '123456' },
    { text: 'Code:\n  123456\nExpires soon', digits: undefined, code: '123456' },
    { text: 'https://porthole.test/verify?code=123456&x=1', digits: undefined, code: '123456' },
    { text: 'Your code is 1234567.', digits: undefined, code: undefined },
    { text: 'Reference ABC123456 is not a code', digits: undefined, code: undefined },
    { text: 'First 111111, then 222222', digits: undefined, code: '111111' },
    { text: 'Order 1234567 and code 654321', digits: undefined, code: '654321' },
    { text: 'No code here', digits: undefined, code: undefined },
    { text: '', digits: undefined, code: undefined },
    { text: 'PIN 4821, code 123456', digits: 4, code: '4821' },
    { text: 'Code 12345678', digits: 8, code: '12345678' },
  ])('finds $code in $text (digits: $digits)', ({ text, digits, code }) => {
    expect(extractCode(text, digits)).toBe(code)
  })

  test('refuses a digit count that is not a positive integer', () => {
    expect(() => extractCode('123456', 0)).toThrow(RangeError)
    expect(() => extractCode('123456', 1.5)).toThrow(RangeError)
  })
})
