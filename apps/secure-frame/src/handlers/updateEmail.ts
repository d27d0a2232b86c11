import { AbortedError, InvalidParamsError } from '@porthole/protocol/Errors'
import { NotLoggedInError } from '../lib/errors.js'
import { accountOn, getChainId, requireSession, withSession } from '../wallet/session.js'
import type { Handler } from './handler.js'

/**
 * `updateEmail`: starts changing the account's email; the API mails the first
 * code. The email is the account's login and recovery, and the widget is a
 * frame the host can hide under a page of its own, talking the visitor into
 * typing there (SECURITY.md 7): so nothing reaches the API, and nothing is
 * mailed, until the visitor approves this change, from this address to that
 * one, in the approval window, a top-level window of the secure origin. A
 * rejection answers 4001 and changes nothing.
 */
export const updateEmail = (async ({ email: typed, origin }, context, { signal }) => {
  const { user } = await requireSession(context)
  if (!user.email) throw new InvalidParamsError('This wallet has no email to change.')
  // As the API stores it: the window shows (and the visitor approves) the very address
  // that will be the login, not a look-alike in capitals (ada@gmaiI.com is ada@gmaii.com).
  const email = typed.trim().toLowerCase()
  if (email === user.email.toLowerCase())
    throw new InvalidParamsError("That is already this wallet's email.")
  // As for a signature: the browser's word on the host first (SECURITY.md 8).
  const host = context.ancestorOrigin() ?? origin
  if (!host) throw new NotLoggedInError("The site's origin could not be verified")
  const chainId = await getChainId(context)
  await context.requestApproval(
    {
      method: 'updateEmail',
      params: { from: user.email, to: email },
      chainId,
      account: accountOn(user, chainId),
      origin: host,
    },
    { signal },
  )
  if (signal.aborted) throw new AbortedError()
  return withSession(context, (token, current) => {
    // The approval was for this account: signed out and in as another meanwhile, nothing goes.
    if (current.id !== user.id)
      throw new NotLoggedInError('The wallet changed while the approval was open')
    return context.api.updateEmail(token, { email })
  })
}) satisfies Handler<'updateEmail'>
