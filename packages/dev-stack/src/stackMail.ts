/**
 * The mail an SMTP catcher caught, read from a test's own process through
 * the catcher's JSON listing (`createMailListing`): the e2e stack's at
 * `origins.mail/messages` (the plain exports), or any other (`mailListing`).
 */

import { extractCode } from './mailCatcher.ts'
import { origins } from './stack.ts'

export type StackMail = { from: string; to: string[]; subject: string; text: string; date: string }

/** The mail caught by the catcher whose listing is `listingUrl` (…/messages). */
export function mailListing(listingUrl: string) {
  async function messages(): Promise<StackMail[]> {
    const response = await fetch(listingUrl)
    if (!response.ok) throw new Error(`The mail listing answered ${response.status}`)
    return (await response.json()) as StackMail[]
  }

  /**
   * The first mail to `to` whose subject matches, caught after `since` (an
   * index into the listing, from `mailCount()`), waiting up to `timeout` ms.
   */
  async function waitForMail(
    to: string,
    subject: RegExp,
    options: { since?: number; timeout?: number } = {},
  ): Promise<StackMail> {
    const { since = 0, timeout = 15_000 } = options
    const deadline = Date.now() + timeout
    for (;;) {
      const found = (await messages())
        .slice(since)
        .find((mail) => mail.to.includes(to.toLowerCase()) && subject.test(mail.subject))
      if (found) return found
      if (Date.now() > deadline)
        throw new Error(`No mail to ${to} with a subject matching ${subject} within ${timeout} ms`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  return {
    messages,
    waitForMail,
    mailCount: async (): Promise<number> => (await messages()).length,
    /** The 6-digit code of the newest code mail to `to` after `since`. */
    async waitForCode(to: string, since = 0): Promise<string> {
      const mail = await waitForMail(to, /code/i, { since })
      const code = extractCode(mail.text)
      if (!code) throw new Error(`The mail to ${to} holds no code: ${mail.text}`)
      return code
    },
    /** The device approval link of the newest approval mail to `to` after `since`. */
    async waitForApprovalLink(to: string, since = 0): Promise<string> {
      const mail = await waitForMail(to, /approve/i, { since })
      const link = mail.text.match(/https?:\/\/\S+\/auth\/v1\/device\/approve\?token=[\w-]+/)?.[0]
      if (!link) throw new Error(`The mail to ${to} holds no approval link: ${mail.text}`)
      return link
    },
  }
}

const stack = mailListing(`${origins.mail}/messages`)
export const {
  messages: stackMessages,
  waitForMail,
  mailCount,
  waitForCode,
  waitForApprovalLink,
} = stack
