import type { WalletEntry } from '@porthole/protocol/Api'
import type { HostWallet } from '@porthole/protocol/Host'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { walletEntry } from '../../../test/api.js'
import { type ConnectEntry, connectorIdOf, toConnectList, walletConnectId } from './connectList.js'

/** A registry id: 64 lowercase hex digits, as the API serves them. */
const walletId = (digit: string) => digit.repeat(64)

const hostWallet = (rdns: string, uuid = `uuid-${rdns || 'legacy'}`): HostWallet => ({
  uuid,
  name: `Host ${rdns || uuid}`,
  icon: '',
  rdns,
})

const registryWallet = (id: string, rdns: string | null = null): WalletEntry =>
  walletEntry({ id, name: `Registry ${id.slice(0, 4)}`, rdns })

const summary = (entries: ConnectEntry[]) => entries.map(({ key, tag }) => ({ key, tag }))

describe('connectorIdOf', () => {
  test.each([
    { wallet: hostWallet('io.metamask', 'uuid-1'), expected: 'io.metamask' },
    { wallet: hostWallet('', 'uuid-legacy'), expected: 'uuid-legacy' },
  ])('gives $expected for rdns "$wallet.rdns"', ({ wallet, expected }) => {
    expect(connectorIdOf(wallet)).toBe(expected)
  })
})

describe('toConnectList', () => {
  test('lists WalletConnect, the recent wallets, the installed wallets, then the recommended ones', () => {
    const entries = toConnectList({
      hostWallets: [hostWallet('io.metamask'), hostWallet('io.rabby'), hostWallet('me.rainbow')],
      recent: ['me.rainbow'],
      recommended: [registryWallet(walletId('a')), registryWallet(walletId('b'))],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'qr' },
      { key: 'installed:me.rainbow', tag: 'recent' },
      { key: 'installed:io.metamask', tag: 'installed' },
      { key: 'installed:io.rabby', tag: 'installed' },
      { key: `registry:${walletId('a')}`, tag: null },
      { key: `registry:${walletId('b')}`, tag: null },
    ])
    expect(entries.map((entry) => entry.kind)).toEqual([
      'walletConnect',
      'installed',
      'installed',
      'installed',
      'registry',
      'registry',
    ])
  })

  test('keeps the recent order, most recent first, and tags only the 2 most recent', () => {
    const entries = toConnectList({
      hostWallets: [hostWallet('io.metamask'), hostWallet('io.rabby'), hostWallet('me.rainbow')],
      recent: ['io.rabby', 'me.rainbow', 'io.metamask'],
      recommended: [],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'qr' },
      { key: 'installed:io.rabby', tag: 'recent' },
      { key: 'installed:me.rainbow', tag: 'recent' },
      { key: 'installed:io.metamask', tag: 'installed' },
    ])
  })

  test('merges a registry wallet into the installed wallet with its rdns and lists it once', () => {
    const metamask = registryWallet(walletId('a'), 'io.metamask')
    const other = registryWallet(walletId('b'), 'com.example')
    const entries = toConnectList({
      hostWallets: [hostWallet('io.metamask')],
      recent: [],
      recommended: [metamask, other],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'qr' },
      { key: 'installed:io.metamask', tag: 'installed' },
      { key: `registry:${walletId('b')}`, tag: null },
    ])
    expect(entries[1]?.registry).toBe(metamask)
    expect(entries[1]?.hostWallet).toEqual(hostWallet('io.metamask'))
  })

  test('keeps the registry listing of a recent wallet merged into it', () => {
    const metamask = registryWallet(walletId('a'), 'io.metamask')
    const entries = toConnectList({
      hostWallets: [hostWallet('io.metamask')],
      recent: ['io.metamask'],
      recommended: [metamask],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'qr' },
      { key: 'installed:io.metamask', tag: 'recent' },
    ])
    expect(entries[1]?.registry).toBe(metamask)
  })

  test('skips a recent id that is not installed', () => {
    const entries = toConnectList({
      hostWallets: [hostWallet('io.metamask')],
      recent: ['io.uninstalled', 'io.metamask'],
      recommended: [registryWallet(walletId('a'), 'io.uninstalled')],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'qr' },
      { key: 'installed:io.metamask', tag: 'recent' },
      { key: `registry:${walletId('a')}`, tag: null },
    ])
  })

  test.each([
    { recent: [], tag: 'qr' },
    { recent: ['io.metamask'], tag: 'qr' },
    { recent: [walletConnectId], tag: 'recent' },
    { recent: ['io.metamask', walletConnectId], tag: 'recent' },
    { recent: ['io.metamask', 'io.rabby', walletConnectId], tag: 'qr' },
  ])('tags WalletConnect $tag when the recent ids are $recent', ({ recent, tag }) => {
    const entries = toConnectList({
      hostWallets: [hostWallet('io.metamask'), hostWallet('io.rabby')],
      recent,
      recommended: [],
    })
    expect(entries[0]).toMatchObject({ key: walletConnectId, kind: 'walletConnect', tag })
    expect(entries.filter((entry) => entry.kind === 'walletConnect')).toHaveLength(1)
  })

  test('counts a recent WalletConnect among the 2 most recent', () => {
    const entries = toConnectList({
      hostWallets: [hostWallet('io.metamask'), hostWallet('io.rabby')],
      recent: [walletConnectId, 'io.rabby', 'io.metamask'],
      recommended: [],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'recent' },
      { key: 'installed:io.rabby', tag: 'recent' },
      { key: 'installed:io.metamask', tag: 'installed' },
    ])
  })

  test('uses the uuid of a legacy wallet without rdns as its connector id', () => {
    const legacy = hostWallet('', 'uuid-legacy')
    const entries = toConnectList({
      hostWallets: [legacy, hostWallet('io.metamask')],
      recent: ['uuid-legacy'],
      recommended: [registryWallet(walletId('a'))],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'qr' },
      { key: 'installed:uuid-legacy', tag: 'recent' },
      { key: 'installed:io.metamask', tag: 'installed' },
      { key: `registry:${walletId('a')}`, tag: null },
    ])
    expect(entries[1]?.hostWallet).toBe(legacy)
    expect(entries[1]?.registry).toBeUndefined()
  })

  test('lists a wallet announced twice with the same rdns once, as first announced', () => {
    const first = hostWallet('io.metamask', 'uuid-first')
    const entries = toConnectList({
      hostWallets: [first, hostWallet('io.metamask', 'uuid-second')],
      recent: [],
      recommended: [registryWallet(walletId('a'), 'io.metamask')],
    })
    expect(summary(entries)).toEqual([
      { key: 'walletConnect', tag: 'qr' },
      { key: 'installed:io.metamask', tag: 'installed' },
    ])
    expect(entries[1]?.hostWallet).toBe(first)
  })

  test('lists no wallet twice and every host wallet once, for any input', () => {
    const rdns: fc.Arbitrary<string> = fc.constantFrom(
      '',
      'io.metamask',
      'io.rabby',
      'me.rainbow',
      'com.coinbase.wallet',
    )
    const uuid: fc.Arbitrary<string> = fc.constantFrom('uuid-1', 'uuid-2', 'uuid-3', 'io.rabby')
    const hostWallets = fc.array(
      fc.record({ uuid, name: fc.string(), icon: fc.constant(''), rdns }),
      { maxLength: 8 },
    )
    const recommended = fc.uniqueArray(
      fc.record({
        id: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7').map(walletId),
        rdns: fc.option(rdns, { nil: null }),
      }),
      { selector: (wallet) => wallet.id, maxLength: 8 },
    )
    const recent = fc.array(
      fc.oneof(rdns, uuid, fc.constant(walletConnectId), fc.string({ maxLength: 4 })),
      { maxLength: 4 },
    )
    fc.assert(
      fc.property(hostWallets, recommended, recent, (hostWallets, wallets, recent) => {
        const entries = toConnectList({
          hostWallets,
          recent,
          recommended: wallets.map((wallet) => registryWallet(wallet.id, wallet.rdns)),
        })
        const registryIds = entries.flatMap((entry) => (entry.registry ? [entry.registry.id] : []))
        const connectorIds = entries.flatMap((entry) =>
          entry.hostWallet ? [connectorIdOf(entry.hostWallet)] : [],
        )
        const keys = entries.map((entry) => entry.key)
        expect(new Set(registryIds).size).toBe(registryIds.length)
        expect(new Set(connectorIds).size).toBe(connectorIds.length)
        expect(new Set(keys).size).toBe(keys.length)
        expect(new Set(connectorIds)).toEqual(new Set(hostWallets.map(connectorIdOf)))
        expect(entries[0]?.kind).toBe('walletConnect')
        expect(entries.filter((entry) => entry.tag === 'recent').length).toBeLessThanOrEqual(2)
        const installedRdns = new Set(hostWallets.map((wallet) => wallet.rdns).filter(Boolean))
        for (const entry of entries) {
          if (entry.kind === 'registry')
            expect(installedRdns.has(entry.registry.rdns ?? '')).toBe(false)
        }
      }),
    )
  })
})
