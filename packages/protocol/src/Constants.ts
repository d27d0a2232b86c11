/** The seed's timing and limit constants (shared/SPEC.md section 9), by name. */

/** Iframe load timeout: the handshake must complete within this. */
export const iframeLoadTimeout = 20_000
/** Request timeout for email, device, OTP, social and redirect requests. */
export const loginRequestTimeout = 120_000
/**
 * How long a host's provider request waits for the visitor (a connection, an
 * approval), end to end: the loader gives up after this and cancels the
 * request, which closes its approval in the widget and the secure frame
 * (SECURITY.md 17); the widget's own wait for an approval is the same.
 */
export const providerRequestTimeout = 10 * 60_000
/** Default timeout for any other cross-frame request. */
export const defaultRequestTimeout = 30_000
/** Sign-out waits at most this long. */
export const signOutTimeout = 3_000
/** Delay after the secure frame's READY frame before it counts as ready. */
export const frameReadyDelay = 500
/** Email login cooldown, per address. */
export const emailLoginCooldown = 30_000
/** WalletConnect pairing expiry, and the margin under which it counts as expired. */
export const pairingExpiry = 4 * 60_000
export const pairingExpiryMargin = 10_000
export const retryGap = 1_000
export const imagePreloadTimeout = 2_000
export const debounceDefault = 500
export const tokenBalanceRetry = 30_000
export const transactionConfirmationTimeout = 25_000
export const pendingTransactionsLimit = 99
export const pendingTransactionPollingInterval = 30_000
export const tooltipOpenDelay = 700
export const tooltipSkipDelay = 300
export const recommendedWalletsCount = 4
export const walletsPerPage = 40
export const walletsSearchEntries = 100
export const walletsSearchMinWait = 300
export const walletsSearchMinLength = 2
export const errorReportsLimit = 5
export const errorReportsWindow = 60_000
export const modalWidth = 360
export const sdkVersionDefault = 4
/** Messages larger than this (serialized estimate) are dropped. */
export const maxMessageBytes = 256 * 1024

/** A project id: letters, digits, `-` and `_`, at most 64 characters, starting with a letter or digit. */
export const projectIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
