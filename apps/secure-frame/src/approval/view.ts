/**
 * The approval's DOM, built with `createElement` and `textContent` only: every
 * string from the request is data, never markup (the frame's CSP forbids
 * inline script and style; classes live in `lib/style.css`). The same view serves
 * the frame and the popup.
 */
import type { Display, Field, Section } from './decode.js'
import type { ApprovalRequest } from './request.js'

/** Field values longer than this show a shortened preview and an expandable full value. */
export const previewLength = 120

/** Leading and trailing characters of the account shown (SPEC section 2). */
const accountLeading = 4
const accountTrailing = 6

/** `0x12…abcdef`: the 4 leading and 6 trailing characters of an address. */
export function truncateAddress(address: string): string {
  if (address.length <= accountLeading + accountTrailing + 1) return address
  return `${address.slice(0, accountLeading)}…${address.slice(-accountTrailing)}`
}

/** A host-supplied icon is shown only as an inline raster image (the CSP allows `data:` images, nothing remote). */
export function isShowableIcon(icon: string): boolean {
  return /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/.test(icon)
}

export type PrimaryAction =
  /** Approve in place (visibility can be checked). */
  | 'approve'
  /** Open the approval in a popup (it can't). */
  | 'openWindow'

export type ApprovalView = {
  /** The approval's root, `role="dialog"`. */
  readonly element: HTMLElement
  readonly reject: HTMLButtonElement
  /** Approve, or 'Open approval window'. */
  readonly primary: HTMLButtonElement
  /** A polite live status line under the details ('' hides it). */
  setStatus(text: string): void
  /** Enables or disables the primary button. */
  setEnabled(enabled: boolean): void
}

let ids = 0

function element<K extends keyof HTMLElementTagNameMap>(
  document: Document,
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (className) node.className = className
  if (text !== undefined) node.textContent = text
  return node
}

function renderValue(document: Document, field: Field): HTMLElement {
  const value = element(
    document,
    'dd',
    field.mono ? 'approval__value approval__value--mono' : 'approval__value',
  )
  if (field.value.length <= previewLength) {
    value.textContent = field.value
    return value
  }
  // Long: a preview, and the whole value one click away.
  const details = element(document, 'details', 'approval__more')
  const summary = element(document, 'summary', 'approval__preview')
  summary.textContent = `${field.value.slice(0, previewLength)}…`
  summary.title = 'Show the full value'
  const full = element(document, 'pre', 'approval__full', field.value)
  details.append(summary, full)
  value.append(details)
  return value
}

function renderFields(document: Document, fields: readonly Field[]): HTMLDListElement {
  const list = element(document, 'dl', 'approval__fields')
  for (const field of fields) {
    const row = element(document, 'div', 'approval__field')
    row.append(
      element(document, 'dt', 'approval__label', field.label),
      renderValue(document, field),
    )
    list.append(row)
  }
  return list
}

function renderSection(document: Document, section: Section): HTMLElement {
  const node = element(document, 'section', 'approval__section')
  if (section.title) node.append(element(document, 'h2', 'approval__section-title', section.title))
  if (section.type === 'fields') node.append(renderFields(document, section.fields))
  else {
    const text = element(
      document,
      'pre',
      `approval__text approval__text--${section.format}`,
      section.text,
    )
    // Focusable so a keyboard can scroll a long message.
    text.tabIndex = 0
    text.setAttribute('aria-label', section.title)
    node.append(text)
  }
  return node
}

export type CreateViewParameters = {
  /** The snapshot being shown (untrusted content, written as text). */
  request: ApprovalRequest
  display: Display
  primary: PrimaryAction
}

/** Builds the approval (not attached). */
export function createApprovalView(
  document: Document,
  { request, display, primary }: CreateViewParameters,
): ApprovalView {
  const id = ++ids
  const titleId = `approval-title-${id}`
  const originId = `approval-origin-${id}`
  const statusId = `approval-status-${id}`

  const root = element(document, 'section', 'approval')
  root.setAttribute('role', 'dialog')
  root.setAttribute('aria-modal', 'true')
  root.setAttribute('aria-labelledby', titleId)
  root.setAttribute('aria-describedby', originId)
  root.dataset.kind = display.kind
  // Focus lands on the dialog itself, never on Approve: a key press meant for
  // the page must not approve anything.
  root.tabIndex = -1

  const header = element(document, 'header', 'approval__header')
  const title = element(document, 'h1', 'approval__title', display.title)
  title.id = titleId
  const origin = element(document, 'p', 'approval__origin')
  origin.id = originId
  origin.append(
    element(document, 'span', 'approval__origin-label', 'Requested by'),
    element(document, 'strong', 'approval__origin-value', request.origin),
  )
  header.append(title, origin)

  const siteName = request.site?.name?.trim()
  const siteIcon = request.site?.icon
  if (siteName || (siteIcon && isShowableIcon(siteIcon))) {
    const site = element(document, 'p', 'approval__site')
    if (siteIcon && isShowableIcon(siteIcon)) {
      const icon = element(document, 'img', 'approval__site-icon')
      icon.alt = ''
      icon.src = siteIcon
      icon.width = 16
      icon.height = 16
      site.append(icon)
    }
    if (siteName) site.append(element(document, 'span', 'approval__site-name', siteName))
    site.append(element(document, 'span', 'approval__site-label', 'Provided by the site'))
    header.append(site)
  }

  const meta = element(document, 'dl', 'approval__meta')
  const accountRow = element(document, 'div', 'approval__field')
  const account = element(
    document,
    'dd',
    'approval__value approval__value--mono',
    truncateAddress(request.account),
  )
  account.title = request.account
  accountRow.append(element(document, 'dt', 'approval__label', 'Account'), account)
  const networkRow = element(document, 'div', 'approval__field')
  const network = element(document, 'dd', 'approval__value', request.chainName || request.chainId)
  if (request.chainName) network.title = request.chainId
  networkRow.append(element(document, 'dt', 'approval__label', 'Network'), network)
  // An email change is the account's, on every network: no network to name.
  meta.append(accountRow)
  if (display.kind !== 'emailChange') meta.append(networkRow)

  const content = element(document, 'div', 'approval__content')
  content.setAttribute('role', 'group')
  content.setAttribute('aria-label', 'Request details')
  for (const note of display.notes) {
    const item = element(document, 'p', 'approval__note', note)
    item.setAttribute('role', 'note')
    content.append(item)
  }
  for (const section of display.sections) content.append(renderSection(document, section))

  const status = element(document, 'p', 'approval__status')
  status.id = statusId
  status.setAttribute('role', 'status')
  status.hidden = true

  const actions = element(document, 'div', 'approval__actions')
  const reject = element(document, 'button', 'approval__button approval__button--reject', 'Reject')
  reject.type = 'button'
  const primaryButton = element(
    document,
    'button',
    'approval__button approval__button--approve',
    primary === 'approve' ? 'Approve' : 'Open approval window',
  )
  primaryButton.type = 'button'
  primaryButton.setAttribute('aria-describedby', statusId)
  if (primary === 'approve') primaryButton.disabled = true
  actions.append(reject, primaryButton)

  root.append(header, meta, content, status, actions)

  return {
    element: root,
    reject,
    primary: primaryButton,
    setStatus(text) {
      status.textContent = text
      status.hidden = text === ''
    },
    setEnabled(enabled) {
      primaryButton.disabled = !enabled
    },
  }
}
