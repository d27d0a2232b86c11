// Used by e2e/security/inv-21-cross-site.spec.ts (SECURITY.md 21): opened on
// another site (evil.localhost), it asks the API to mail a login code to the
// victims named in its query, the ways any page can without a CORS preflight:
// a form with enctype="text/plain" whose body is JSON, a no-cors fetch of
// JSON as text/plain, and the same form from a sandboxed frame (Origin: null).
// The test watches the answers from outside (the page cannot read them).
const query = new URLSearchParams(location.search)
const api = query.get('api') ?? 'http://api.localhost:5173'
const projectId = query.get('projectId') ?? 'porthole-dev'
const target = `${api}/auth/v1/login/email?projectId=${encodeURIComponent(projectId)}`
const deviceId = 'AAAAAAAAAAAAAAAAAAAAAAAA'

/**
 * A text/plain form sends `name=value\r\n`: the `=` lands inside a string the
 * second "email" key then replaces, so the body is JSON the API would take.
 */
function jsonForm(documentRef, victim) {
  const form = documentRef.createElement('form')
  form.method = 'POST'
  form.enctype = 'text/plain'
  form.action = target
  const field = documentRef.createElement('input')
  field.type = 'hidden'
  field.name = '{"email":"a'
  field.value = `b","email":"${victim}","deviceId":"${deviceId}"}`
  form.append(field)
  return form
}

function postForm(victim) {
  const frame = document.createElement('iframe')
  frame.name = 'form-sink'
  document.body.append(frame)
  const form = jsonForm(document, victim)
  form.target = frame.name
  document.body.append(form)
  form.submit()
}

function postNoCors(victim) {
  return fetch(target, {
    method: 'POST',
    mode: 'no-cors',
    credentials: 'include',
    headers: { 'content-type': 'text/plain' },
    body: JSON.stringify({ email: victim, deviceId }),
  })
}

function postFromSandbox(victim) {
  const frame = document.createElement('iframe')
  frame.setAttribute('sandbox', 'allow-forms allow-scripts')
  const form = jsonForm(document, victim).outerHTML
  frame.srcdoc = `<!doctype html><body>${form}<script>document.forms[0].submit()</script></body>`
  document.body.append(frame)
}

const result = document.getElementById('result')
postForm(query.get('form') ?? 'nobody@example.com')
postFromSandbox(query.get('sandboxed') ?? 'nobody@example.com')
// An opaque answer either way: the page cannot read it, and does not need to.
postNoCors(query.get('fetch') ?? 'nobody@example.com').then(
  () => {
    result.textContent = 'sent'
  },
  (error) => {
    result.textContent = `failed: ${error}`
  },
)
