/**
 * Data a page shows, kept current: loaded once, loaded again (debounced) when
 * one of the page's event types arrives over the live connection, and polled
 * while that connection is down (a device token bound to another device, a
 * gateway restart), so every page stays current without a reload.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { liveState, onEvent, onLiveState, type LiveState } from "./live.ts"

/** What {@link useResource} answers. */
export interface Resource<A> {
  readonly data: A | undefined
  readonly error: unknown
  readonly loading: boolean
  /** Loads again now. */
  readonly reload: () => void
}

/** Options of {@link useResource}. */
export interface ResourceOptions {
  /** Event types (exact, or a prefix ending in `.`, e.g. `run.`) that make the data stale. */
  readonly events?: ReadonlyArray<string>
  /** Reload at this interval (ms) even while live (charts of /status, /metrics). */
  readonly refreshMs?: number
  /** Polling interval (ms) while the live connection is down; default 5000. */
  readonly pollMs?: number
}

const matches = (patterns: ReadonlyArray<string>, type: string): boolean =>
  patterns.some((p) => (p.endsWith(".") ? type.startsWith(p) : type === p))

/** The live connection's state, re-rendering on change. */
export const useLiveState = (): LiveState => {
  const [state, setState] = useState(liveState())
  useEffect(() => onLiveState(setState), [])
  return state
}

/** Loads `load()` and keeps it current; `deps` restart it (filters, ids). */
export const useResource = <A>(load: () => Promise<A>, options: ResourceOptions, deps: ReadonlyArray<unknown>): Resource<A> => {
  const [data, setData] = useState<A | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [loading, setLoading] = useState(true)
  const generation = useRef(0)
  const live = useLiveState()

  const reload = useCallback(() => {
    const mine = ++generation.current
    setLoading(true)
    load().then(
      (value) => {
        if (mine !== generation.current) return
        setData(value)
        setError(undefined)
        setLoading(false)
      },
      (failure: unknown) => {
        if (mine !== generation.current) return
        setError(failure)
        setLoading(false)
      }
    )
  }, deps)

  useEffect(() => {
    reload()
  }, [reload])

  const events = options.events ?? []
  useEffect(() => {
    if (events.length === 0) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const stop = onEvent((event) => {
      if (!matches(events, event.type) || timer !== undefined) return
      timer = setTimeout(() => {
        timer = undefined
        reload()
      }, 100)
    })
    return () => {
      stop()
      if (timer !== undefined) clearTimeout(timer)
    }
  }, [reload, events.join(",")])

  const interval = options.refreshMs ?? (live.status === "live" ? undefined : options.pollMs ?? 5000)
  useEffect(() => {
    if (interval === undefined) return
    const timer = setInterval(reload, interval)
    return () => clearInterval(timer)
  }, [reload, interval])

  return { data, error, loading, reload }
}
