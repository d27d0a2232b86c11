import { NotAvailableError } from '../lib/errors.js'
import type { Handler } from './handler.js'

export const smartAccountsNotAvailable = 'Smart accounts are not available yet'

/** `initSmartAccount`: not offered yet (4200). */
export const initSmartAccount = (() => {
  throw new NotAvailableError(smartAccountsNotAvailable)
}) satisfies Handler<'initSmartAccount'>
