import { describe, expect, test } from 'vitest'
import * as Arming from './arming.js'

const visible = (time: number) => ({ type: 'visible', visible: true, time }) as const
const hidden = (time: number) => ({ type: 'visible', visible: false, time }) as const
const tick = (time: number) => ({ type: 'tick', time }) as const

function run(events: Arming.Event[], delay = 500): Arming.State {
  return events.reduce(Arming.next, Arming.create(delay))
}

describe('inv-07 Arming', () => {
  test('starts disarmed and stays so with no visibility report', () => {
    expect(Arming.isArmed(Arming.create())).toBe(false)
    expect(Arming.isArmed(run([tick(10_000)]))).toBe(false)
  })

  test('the default delay is 500 ms', () => {
    expect(Arming.create().delayMs).toBe(500)
  })

  test('arms only once visible for the whole delay', () => {
    expect(Arming.isArmed(run([visible(1000), tick(1499)]))).toBe(false)
    expect(Arming.isArmed(run([visible(1000), tick(1500)]))).toBe(true)
  })

  test('a not-visible report disarms and restarts the delay', () => {
    const armed = run([visible(0), tick(500)])
    expect(Arming.isArmed(armed)).toBe(true)
    const covered = Arming.next(armed, hidden(600))
    expect(Arming.isArmed(covered)).toBe(false)
    const back = Arming.next(covered, visible(700))
    expect(Arming.isArmed(Arming.next(back, tick(1199)))).toBe(false)
    expect(Arming.isArmed(Arming.next(back, tick(1200)))).toBe(true)
  })

  test('a flicker during arming restarts it from the last visible report', () => {
    const state = run([visible(0), tick(400), hidden(450), visible(460), tick(600)])
    expect(Arming.isArmed(state)).toBe(false)
    expect(Arming.remaining(state, 600)).toBe(360)
  })

  test('repeated visible reports do not restart the delay', () => {
    const state = run([visible(0), visible(300), visible(450)])
    expect(Arming.isArmed(Arming.next(state, tick(500)))).toBe(true)
  })

  test('a visible report after the delay arms at once', () => {
    expect(Arming.isArmed(run([visible(0), visible(600)]))).toBe(true)
  })

  test('a clock that goes backwards never arms early', () => {
    expect(Arming.isArmed(run([visible(1000), tick(0)]))).toBe(false)
  })

  test('ticks while hidden do nothing', () => {
    expect(Arming.isArmed(run([visible(0), hidden(100), tick(5000)]))).toBe(false)
  })

  test('remaining counts down while arming, and is undefined otherwise', () => {
    expect(Arming.remaining(Arming.create(), 0)).toBeUndefined()
    expect(Arming.remaining(run([visible(100)]), 350)).toBe(250)
    expect(Arming.remaining(run([visible(0), tick(500)]), 600)).toBeUndefined()
  })

  test('a zero or invalid delay arms on the first visible report', () => {
    expect(Arming.isArmed(run([visible(5)], 0))).toBe(true)
    expect(Arming.create(Number.NaN).delayMs).toBe(0)
    expect(Arming.create(-5).delayMs).toBe(0)
  })

  test('input while arming restarts the delay; input once armed changes nothing', () => {
    const input = (time: number) => ({ type: 'input', time }) as const
    const trapped = run([visible(0), input(80), input(160), input(480), tick(600)])
    expect(Arming.isArmed(trapped)).toBe(false)
    expect(Arming.remaining(trapped, 600)).toBe(380)
    expect(Arming.isArmed(run([visible(0), input(480), tick(980)]))).toBe(true)
    expect(Arming.isArmed(run([visible(0), tick(500), input(600)]))).toBe(true)
    expect(run([input(10)]).phase).toBe('hidden')
  })
})
