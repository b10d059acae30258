/**
 * The console: the session (sign-in when there is none), then the layout with
 * the pages the principal may see, routed under /ui (preact-iso: History API,
 * code-split pages). A 401 from any call (the session expired or was signed out
 * elsewhere) returns to sign-in.
 */
import { useEffect, useState } from "preact/hooks"
import { ErrorBoundary, lazy, LocationProvider, Route, Router, useLocation } from "preact-iso"
import { onUnauthorized } from "./api.ts"
import { Layout } from "./Layout.tsx"
import { startLive, stopLive } from "./live.ts"
import { pages } from "./pages.ts"
import { can, loadPrincipal, type Principal, PrincipalContext, signOut } from "./session.ts"
import { SignIn } from "./SignIn.tsx"
import { ErrorNote } from "../components/ErrorNote.tsx"

const routes = pages.map((page) => ({ page, component: lazy(page.load) }))

const NotFound = ({ principal }: { principal: Principal }) => {
  const first = pages.find((page) => can(principal, page.scope))
  return (
    <section aria-labelledby="not-found">
      <h1 id="not-found">Nothing here</h1>
      {first ? <p><a href={`/ui${first.path}`}>Go to {first.title}</a></p> : <p>Your token's scopes allow no page of this console.</p>}
    </section>
  )
}

const Start = ({ principal }: { principal: Principal }) => {
  const first = pages.find((page) => can(principal, page.scope))
  const { route } = useLocation()
  useEffect(() => {
    if (first) route(`/ui${first.path}`, true)
  }, [first])
  return first ? null : <NotFound principal={principal} />
}

/** The console's root. */
export const App = () => {
  const [principal, setPrincipal] = useState<Principal | undefined | "loading">("loading")
  const [error, setError] = useState<unknown>(undefined)

  useEffect(() => {
    loadPrincipal().then(setPrincipal, (failure: unknown) => setError(failure))
    return onUnauthorized(() => {
      void stopLive()
      setPrincipal(undefined)
    })
  }, [])

  useEffect(() => {
    if (principal !== undefined && principal !== "loading") void startLive()
  }, [principal])

  if (error !== undefined) return <main id="main"><ErrorNote error={error} /></main>
  if (principal === "loading") return <main id="main" aria-busy="true"><p>Loading…</p></main>
  if (principal === undefined) return <SignIn onSignedIn={setPrincipal} />

  const onSignOut = async () => {
    await stopLive()
    await signOut().catch(() => undefined)
    setPrincipal(undefined)
  }

  return (
    <PrincipalContext.Provider value={principal}>
      <LocationProvider scope="/ui">
        <Layout onSignOut={onSignOut}>
          <ErrorBoundary>
            <Router>
              <Route path="/ui" component={() => <Start principal={principal} />} />
              {routes.flatMap(({ page, component }) =>
                can(principal, page.scope)
                  ? [
                    <Route key={page.path} path={`/ui${page.path}`} component={component} />,
                    <Route key={`${page.path}/*`} path={`/ui${page.path}/*`} component={component} />
                  ]
                  : []
              )}
              <Route default component={() => <NotFound principal={principal} />} />
            </Router>
          </ErrorBoundary>
        </Layout>
      </LocationProvider>
    </PrincipalContext.Provider>
  )
}
