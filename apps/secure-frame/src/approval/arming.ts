/**
 * When Approve may be clicked (SECURITY.md 7), as a pure state machine: the
 * approval window must have been reported shown and focused, without a
 * break, for the whole arming delay. Any report that it is not (page hidden,
 * window not focused) disarms it and restarts the delay. The DOM side feeds it events and asks `isArmed`.
 */

/** Approve stays disabled this long after the approval becomes visible. */
export const defaultArmingDelayMs = 500

export type State = {
  readonly phase: 'hidden' | 'arming' | 'armed'
  /** When the current unbroken visible period began; `undefined` while hidden. */
  readonly since: number | undefined
  readonly delayMs: number
}

export type Event =
  /** A visibility report: the window's focus and page visibility. */
  | { readonly type: 'visible'; readonly visible: boolean; readonly time: number }
  /** The clock moved on (a timer set from `remaining`). */
  | { readonly type: 'tick'; readonly time: number }
  /**
   * The visitor pressed a key or a pointer button before Approve armed: the
   * delay starts again, so clicking on and on where Approve will be (a click
   * trap) never reaches it.
   */
  | { readonly type: 'input'; readonly time: number }

export function create(delayMs: number = defaultArmingDelayMs): State {
  const delay = Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0
  return { phase: 'hidden', since: undefined, delayMs: delay }
}

export function next(state: State, event: Event): State {
  switch (event.type) {
    case 'visible': {
      if (!event.visible) return { ...state, phase: 'hidden', since: undefined }
      // Still visible: the period that began earlier goes on.
      if (state.since !== undefined) return next(state, { type: 'tick', time: event.time })
      return next(
        { ...state, phase: 'arming', since: event.time },
        { type: 'tick', time: event.time },
      )
    }
    case 'input':
      return state.phase === 'arming' ? { ...state, since: event.time } : state
    case 'tick': {
      if (state.phase !== 'arming' || state.since === undefined) return state
      // A clock that went backwards never arms early.
      if (event.time < state.since) return state
      return event.time - state.since >= state.delayMs ? { ...state, phase: 'armed' } : state
    }
  }
}

/** Whether Approve may act now. */
export function isArmed(state: State): boolean {
  return state.phase === 'armed'
}

/** Milliseconds until arming at `time`, when arming; `undefined` when hidden or already armed. */
export function remaining(state: State, time: number): number | undefined {
  if (state.phase !== 'arming' || state.since === undefined) return
  return Math.max(0, state.since + state.delayMs - time)
}
