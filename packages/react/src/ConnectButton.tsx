/**
 * `ConnectButton`: Connect while no account is connected; then the network
 * and the account, each opening its view of the modal (SwitchNetwork,
 * Account). Unstyled but for what the page gives through `className`; the
 * buttons carry `data-porthole` for styling.
 */
import { truncate } from '@porthole/chains/Address'
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import type { View, Wallet } from '@porthole/loader'
import { useWallet } from './useWallet.js'

export type ConnectButtonProps = {
  /** The wallet `createWallet` made; the script tag's (`window.Wallet`) when left out. */
  wallet?: Wallet | null | undefined
  /** The Connect button's text. */
  label?: string | undefined
  /** On the button while disconnected, and on the group of two while connected. */
  className?: string | undefined
  /** The name shown for a CAIP-2 network id; Porthole's own names by default, else the id. */
  networkName?: ((chainId: string) => string) | undefined
}

/** A known network's name (`eip155:1` → Ethereum), else the id itself. */
export const defaultNetworkName = (chainId: string): string =>
  getByCaipNetworkId(chainId)?.name ?? chainId

export function ConnectButton({
  wallet,
  label = 'Connect',
  className,
  networkName = defaultNetworkName,
}: ConnectButtonProps) {
  const { wallet: current, state } = useWallet(wallet)
  // The modal shows what went wrong itself; a refused open changes nothing here.
  const open = (view: View) => void current?.open({ view }).catch(() => undefined)
  const busy = state.status === 'connecting' || state.status === 'reconnecting'

  if (state.status !== 'connected' || !state.address)
    return (
      <button
        type="button"
        className={className}
        data-porthole="connect"
        disabled={!current}
        aria-busy={busy || undefined}
        onClick={() => open('Connect')}
      >
        {label}
      </button>
    )

  const network = state.chainId ? networkName(state.chainId) : null
  return (
    <span className={className} data-porthole="connected">
      {network ? (
        <button
          type="button"
          data-porthole="network"
          aria-label={`Network: ${network}. Switch network`}
          onClick={() => open('SwitchNetwork')}
        >
          {network}
        </button>
      ) : null}
      <button
        type="button"
        data-porthole="account"
        aria-label={`Account ${state.address}`}
        title={state.address}
        onClick={() => open('Account')}
      >
        {truncate(state.address)}
      </button>
    </span>
  )
}
