import { describe, expect, test } from 'vitest'
import { announce, icon, type ProviderDetail, toDetail } from './eip6963.js'

const provider = { request: async () => null }

describe('toDetail', () => {
  test('has the EIP-6963 info shape', () => {
    const { info } = toDetail(provider)
    expect(info).toEqual({
      uuid: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      name: 'Porthole',
      icon,
      rdns: 'xyz.porthole',
    })
  })

  test('is frozen, with its info', () => {
    const detail = toDetail(provider)
    expect(Object.isFrozen(detail)).toBe(true)
    expect(Object.isFrozen(detail.info)).toBe(true)
    expect(detail.provider).toBe(provider)
  })

  test('each wallet gets its own uuid', () => {
    expect(toDetail(provider).info.uuid).not.toBe(toDetail(provider).info.uuid)
  })
})

describe('icon', () => {
  test('is a small SVG data URI', () => {
    expect(icon.startsWith('data:image/svg+xml,')).toBe(true)
    expect(icon.length).toBeLessThan(512)
    const svg = decodeURIComponent(icon.slice('data:image/svg+xml,'.length))
    expect(svg).toMatch(
      /^<svg xmlns='http:\/\/www\.w3\.org\/2000\/svg' viewBox='0 0 8 8'>.*<\/svg>$/,
    )
  })
})

describe('announce', () => {
  const received = (target: EventTarget) => {
    const details: ProviderDetail<unknown>[] = []
    target.addEventListener('eip6963:announceProvider', (event) => {
      details.push((event as CustomEvent<ProviderDetail<unknown>>).detail)
    })
    return details
  }

  test('announces at once, and again on every requestProvider', () => {
    const target = new EventTarget()
    const detail = toDetail(provider)
    const before = received(target)
    announce(detail, target)
    expect(before).toEqual([detail])
    const after = received(target)
    target.dispatchEvent(new Event('eip6963:requestProvider'))
    target.dispatchEvent(new Event('eip6963:requestProvider'))
    expect(after).toHaveLength(2)
    expect(after[0]).toBe(detail)
  })

  test('stops answering once stopped', () => {
    const target = new EventTarget()
    const stop = announce(toDetail(provider), target)
    const details = received(target)
    stop()
    target.dispatchEvent(new Event('eip6963:requestProvider'))
    expect(details).toEqual([])
  })
})
