/** A form's or flow's error, announced at once (role alert). */
export function ErrorText({ id, children }: { id?: string | undefined; children: string }) {
  return (
    <p id={id} role="alert" className="rounded-2xl bg-danger-soft px-3 py-2 text-sm text-danger">
      {children}
    </p>
  )
}
