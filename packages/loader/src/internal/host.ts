/**
 * Values of `@porthole/protocol/Host` that the loader needs at run time.
 * `Host.ts` builds zod schemas, so importing a value from it would pull zod
 * into the bundle; these copies are checked against it by `host.test.ts`.
 */
import type { State } from '@porthole/protocol/Host'

/** `Host.channel`. */
export const channel = 'porthole:host-widget'

/** `Host.initialState`. */
export const initialState: State = Object.freeze({
  open: false,
  view: 'Connect',
  status: 'disconnected',
  caipAddress: null,
  address: null,
  chainId: null,
  connector: null,
  session: null,
})
