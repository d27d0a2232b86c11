/** EIP-6963: how dapps find the provider without a global `window.ethereum`. */

export type ProviderInfo = {
  readonly uuid: string
  readonly name: string
  readonly icon: string
  readonly rdns: string
}

export type ProviderDetail<provider> = {
  readonly info: ProviderInfo
  readonly provider: provider
}

/** A porthole (a ring in a rounded square), as a data URI the EIP asks for. */
export const icon =
  "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8'><rect width='8' height='8' rx='2' fill='%231d4ed8'/><circle cx='4' cy='4' r='2' fill='none' stroke='%23fff'/></svg>"

export function toDetail<provider>(provider: provider): ProviderDetail<provider> {
  return Object.freeze({
    info: Object.freeze({
      uuid: crypto.randomUUID(),
      name: 'Porthole',
      icon,
      rdns: 'xyz.porthole',
    }),
    provider,
  })
}

/**
 * Announces the provider now and again on every `eip6963:requestProvider`;
 * returns a function that stops answering.
 */
export function announce<provider>(
  detail: ProviderDetail<provider>,
  target: EventTarget = window,
): () => void {
  const dispatch = () =>
    target.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }))
  target.addEventListener('eip6963:requestProvider', dispatch)
  dispatch()
  return () => target.removeEventListener('eip6963:requestProvider', dispatch)
}
