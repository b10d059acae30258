/**
 * The frame of every page: a skip link, the header (who is signed in, the
 * live connection's state, sign out), the navigation (only the pages the
 * principal may see, grouped) and the page in `<main>`.
 */
import type { ComponentChildren } from "preact"
import { useLocation } from "preact-iso"
import { pages } from "./pages.ts"
import { can, usePrincipal } from "./session.ts"
import { useLiveState } from "./useResource.ts"

const LIVE_LABEL = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", offline: "polling" } as const

const LiveIndicator = () => {
  const live = useLiveState()
  return (
    <span class={`live live-${live.status}`} role="status" title={live.reason ?? ""}>
      {LIVE_LABEL[live.status]}
      {live.status === "offline" && live.reason ? <span class="sr-note"> ({live.reason})</span> : null}
    </span>
  )
}

/** The page frame. */
export const Layout = ({ children, onSignOut }: { children: ComponentChildren; onSignOut: () => void }) => {
  const principal = usePrincipal()
  const { path } = useLocation()
  const live = useLiveState()
  const visible = pages.filter((page) => can(principal, page.scope))
  const sections = [...new Set(visible.map((page) => page.section))]
  return (
    <div class="frame">
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">svc-gateway</span>
        <LiveIndicator />
        <span class="who">
          {principal.tokenKind === "admin" ? "admin token" : principal.tokenKind === "open" ? "auth disabled" : `device token (${principal.scopes.join(", ") || "no scopes"})`}
        </span>
        {live.deviceId ? <span class="device" title="This browser's device id (issue a device token for it to get live updates)">{live.deviceId}</span> : null}
        {principal.tokenKind === "open" ? null : <button type="button" onClick={onSignOut}>Sign out</button>}
      </header>
      <nav aria-label="Pages" class="nav">
        {sections.map((section) => (
          <div key={section}>
            <h2>{section}</h2>
            <ul>
              {visible.filter((page) => page.section === section).map((page) => {
                const href = `/ui${page.path}`
                const current = path === href || path.startsWith(`${href}/`)
                return <li key={page.path}><a href={href} aria-current={current ? "page" : undefined}>{page.title}</a></li>
              })}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" tabIndex={-1}>{children}</main>
    </div>
  )
}
