import { NotAvailableError } from '../errors.js'

export const smartAccountsNotAvailable = 'Smart accounts are not available yet'

/** `initSmartAccount`: not offered yet (4200). */
export function initSmartAccount(): never {
  throw new NotAvailableError(smartAccountsNotAvailable)
}
