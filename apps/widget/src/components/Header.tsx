import { useStore } from '../hooks/useStore.js'
import { isMessageKey, t } from '../lib/i18n.js'
import { canClose, canGoBack, router } from '../lib/state/router.js'
import { currentView } from '../lib/state/store.js'
import { BackIcon, CloseIcon } from './Icons.js'

const iconButton =
  'inline-flex size-9 items-center justify-center rounded-full text-fg hover:bg-surface-2 active:bg-surface-3 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent'

/** The card's header: Back (when there is history), the view's title, Close. */
export function Header({ titleId }: { titleId: string }) {
  const view = useStore(currentView)
  const connectingName = useStore((state) => state.connecting?.name ?? '')
  const key = `modal.label.${view}`
  const title = isMessageKey(key) ? t(key, { name: connectingName }) : view
  const back = useStore(canGoBack)
  const closable = useStore(canClose)
  return (
    <header className="grid grid-cols-[2.25rem_1fr_2.25rem] items-center gap-2 px-3 pt-3 pb-2">
      {back ? (
        <button
          type="button"
          className={iconButton}
          aria-label={t('modal.back')}
          onClick={() => router.back()}
        >
          <BackIcon />
        </button>
      ) : (
        <span />
      )}
      <h2
        id={titleId}
        tabIndex={-1}
        className="truncate text-center text-base font-semibold text-fg outline-none"
      >
        {title}
      </h2>
      {closable ? (
        <button
          type="button"
          className={iconButton}
          aria-label={t('modal.close')}
          onClick={() => router.close()}
        >
          <CloseIcon />
        </button>
      ) : (
        <span />
      )}
    </header>
  )
}
