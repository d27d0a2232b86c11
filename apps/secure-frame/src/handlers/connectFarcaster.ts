import { NotAvailableError } from '../errors.js'

export const farcasterNotAvailable = 'Farcaster login is not available yet'

/** `connectFarcaster`: not offered yet (4200). */
export function connectFarcaster(): never {
  throw new NotAvailableError(farcasterNotAvailable)
}
