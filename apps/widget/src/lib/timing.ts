/** Timing helpers built on `setTimeout` (so Playwright's and Vitest's fake clocks drive them). */

export function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Settles as `promise` does, but not before `ms` have passed, whether it
 * resolves or rejects (so neither a skeleton nor an error just flashes).
 */
export async function withMinimumWait<value>(promise: Promise<value>, ms: number): Promise<value> {
  const [result] = await Promise.allSettled([promise, wait(ms)])
  if (result.status === 'rejected') throw result.reason
  return result.value
}

export type Debounced<args extends unknown[]> = {
  (...args: args): void
  cancel(): void
}

/** Calls `fn` with the latest arguments once `ms` have passed without another call. */
export function debounce<args extends unknown[]>(
  fn: (...args: args) => void,
  ms: number,
): Debounced<args> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const debounced = (...args: args) => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      timer = undefined
      fn(...args)
    }, ms)
  }
  debounced.cancel = () => {
    clearTimeout(timer)
    timer = undefined
  }
  return debounced
}
