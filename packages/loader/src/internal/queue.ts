/**
 * The queue of calls made before `loader.js` ran, left on `window.Wallet` by
 * the snippet of the README:
 *
 *   window.Wallet = window.Wallet || { q: [], open: function (o) { this.q.push(['open', o]) } }
 *
 * Each entry is `[methodName, ...args]`.
 */

type Methods = Record<string, unknown>

const ignore = () => {}

/**
 * Replays the stub's queued calls on the wallet, in order, then makes later
 * pushes to the same queue run at once (for code that kept a reference to the
 * stub). Queued calls are fire-and-forget: their results are dropped. Entries
 * that do not name one of the wallet's methods are skipped.
 */
export function replay(stub: unknown, wallet: object): void {
  const queue = (stub as { q?: unknown } | null | undefined)?.q
  if (!Array.isArray(queue)) return
  const run = (entry: unknown) => {
    if (!Array.isArray(entry)) return
    const [name, ...args] = entry
    const method = Object.hasOwn(wallet, name) ? (wallet as Methods)[name] : undefined
    if (typeof method === 'function')
      new Promise((resolve) => resolve(method(...args))).catch(ignore)
  }
  for (const entry of queue.splice(0)) run(entry)
  queue.push = (...entries: unknown[]) => {
    for (const entry of entries) run(entry)
    return 0
  }
}
