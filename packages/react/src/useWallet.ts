/**
 * `useWallet()`: the wallet and its state in a React component. The state
 * comes from the wallet's own `subscribe` and `getState` through
 * `useSyncExternalStore`, so every component sees the same state in a render.
 */
import { initialState, type State, type Wallet } from '@porthole/loader'
import type {} from '@porthole/loader/global'
import { useEffect, useState, useSyncExternalStore } from 'react'

/** `window.Wallet` once `loader.js` has run (not the queue stub before it), else `null`. */
function tagWallet(): Wallet | null {
  if (typeof window === 'undefined') return null
  const wallet = window.Wallet
  return typeof wallet?.getState === 'function' ? wallet : null
}

const never = () => () => {}
const initial = () => initialState

export type UseWalletResult = {
  /** The wallet; `null` until the script tag's `loader.js` has run. */
  wallet: Wallet | null
  /** Its last state (`initialState` until there is a wallet, and on the server). */
  state: State
}

/**
 * The wallet given, or else the script tag's (`window.Wallet`, waiting for
 * `porthole:ready` when the tag has not run yet), and its state, re-rendering
 * on every change. Pass the wallet `createWallet` made when you use the package
 * instead of the tag.
 */
export function useWallet(wallet?: Wallet | null): UseWalletResult {
  const [fromTag, setFromTag] = useState(() => (wallet === undefined ? tagWallet() : null))
  useEffect(() => {
    if (wallet !== undefined || fromTag) return
    const ready = () => setFromTag(tagWallet())
    ready()
    window.addEventListener('porthole:ready', ready)
    return () => window.removeEventListener('porthole:ready', ready)
  }, [wallet, fromTag])
  const current = wallet === undefined ? fromTag : wallet
  const state = useSyncExternalStore(
    current ? current.subscribe : never,
    current ? current.getState : initial,
    initial,
  )
  return { wallet: current, state }
}
