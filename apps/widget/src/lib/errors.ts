/**
 * The widget's errors that stay inside it (the host sees only `RpcError`s).
 * Each extends the one `BaseError` of `@porthole/protocol`; the views show
 * `shortMessage`, word for word.
 */
import { BaseError } from '@porthole/protocol/Errors'

/** The project offers no EVM network, so the EVM layer cannot start. */
export class NoEvmNetworkError extends BaseError {
  override name = 'NoEvmNetworkError'
  constructor() {
    super('The project has no EVM network.')
  }
}

/** The EVM layer was started before the host was verified. */
export class UnverifiedHostError extends BaseError {
  override name = 'UnverifiedHostError'
  constructor() {
    super('The EVM layer needs a verified host.')
  }
}

/** A WalletConnect wallet answered the pairing without opening a session. */
export class NoSessionError extends BaseError {
  override name = 'NoSessionError'
  constructor() {
    super('The wallet did not open a session.')
  }
}

/**
 * A WalletConnect session that holds no EVM account (a Solana wallet's): the
 * session stays open for the Solana adapter, wagmi gets no connection.
 */
export class NoEvmAccountsError extends BaseError {
  override name = 'NoEvmAccountsError'
  constructor() {
    super('The wallet connected no EVM account.')
  }
}

/** A switch to a chain the widget's wagmi config does not hold. */
export class ChainNotConfiguredError extends BaseError {
  override name = 'ChainNotConfiguredError'
  constructor(chainId: number) {
    super(`Chain ${chainId} is not configured.`)
  }
}

/** The visitor closed the social login popup (the message is the translated copy). */
export class PopupClosedError extends BaseError {
  override name = 'PopupClosedError'
}

/** A sent transaction was mined but reverted. */
export class TransactionRevertedError extends BaseError {
  override name = 'TransactionRevertedError'
  constructor() {
    super('The transaction reverted.')
  }
}

/** A sent transaction was not confirmed within the seed's confirmation timeout. */
export class SendTimeoutError extends BaseError {
  override name = 'SendTimeoutError'
  constructor() {
    super('The transaction was not confirmed in time.')
  }
}

/**
 * A receiver's name could not be resolved (the node or the proxy failed, or
 * the network's UniversalResolver answered something else than a name or
 * none): the seed's library message. The send goes on without a name.
 */
export class ResolveNameError extends BaseError {
  override name = 'ResolveNameError'
  constructor(cause: unknown) {
    super('Error resolving name', { cause })
  }
}

/** The seed's thrown error: the transaction fetch needs the account. */
export class MissingAccountAddressError extends BaseError {
  override name = 'MissingAccountAddressError'
  constructor() {
    super("Transactions can't be fetched without an accountAddress")
  }
}
