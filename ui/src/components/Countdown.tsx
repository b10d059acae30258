/** Time left until an ISO instant, ticking every second ("expired" after it). */
import { useEffect, useState } from "preact/hooks"

const format = (ms: number): string => {
  if (ms <= 0) return "expired"
  const s = Math.floor(ms / 1000)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const rest = s % 60
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${rest}s` : `${rest}s`
}

/** Counts down to `until` (ISO 8601); `—` for none. */
export const Countdown = ({ until }: { until: string | null | undefined }) => {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    if (!until) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [until])
  if (!until) return <span>—</span>
  return <time dateTime={until} title={until}>{format(Date.parse(until) - now)}</time>
}
