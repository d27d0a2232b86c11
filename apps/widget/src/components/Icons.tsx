/** Small inline icons; decorative (the control around each carries the name). */
type IconProps = { className?: string }

const base = {
  focusable: false,
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 2,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  viewBox: '0 0 24 24',
} as const

export function BackIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <path d="M15 18l-6-6 6-6" />
    </svg>
  )
}

export function CloseIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <path d="M18 6L6 18M6 6l12 12" />
    </svg>
  )
}

export function GridIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <rect x="4" y="4" width="6" height="6" rx="1.5" />
      <rect x="14" y="4" width="6" height="6" rx="1.5" />
      <rect x="4" y="14" width="6" height="6" rx="1.5" />
      <rect x="14" y="14" width="6" height="6" rx="1.5" />
    </svg>
  )
}

export function SearchIcon({ className = 'size-4' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <circle cx="11" cy="11" r="7" />
      <path d="M20 20l-3.5-3.5" />
    </svg>
  )
}

export function WarningIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <path d="M12 3l10 18H2L12 3z" />
      <path d="M12 10v4M12 17.5v.01" />
    </svg>
  )
}

export function QrIcon({ className = 'size-5' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <rect x="4" y="4" width="6" height="6" rx="1" />
      <rect x="14" y="4" width="6" height="6" rx="1" />
      <rect x="4" y="14" width="6" height="6" rx="1" />
      <path d="M14 14h2v2h-2zM18 18h2v2h-2zM14 18h2M18 14h2" />
    </svg>
  )
}

export function CopyIcon({ className = 'size-4' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <rect x="9" y="9" width="11" height="11" rx="2" />
      <path d="M5 15V5a2 2 0 0 1 2-2h10" />
    </svg>
  )
}

export function ChevronIcon({ className = 'size-4' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <path d="M9 6l6 6-6 6" />
    </svg>
  )
}

export function CheckIcon({ className = 'size-4' }: IconProps) {
  return (
    <svg aria-hidden="true" {...base} className={className}>
      <path d="M5 12l5 5L20 7" />
    </svg>
  )
}
