/** A small line chart of the last points of one series (SVG; described for screen readers by its latest value). */

/** `points`: oldest first; `format` renders the latest value in the caption. */
export const Chart = ({ title, points, format }: { title: string; points: ReadonlyArray<number>; format: (n: number) => string }) => {
  const width = 240
  const height = 64
  const max = Math.max(1e-9, ...points)
  const step = points.length > 1 ? width / (points.length - 1) : width
  const line = points.map((p, i) => `${(i * step).toFixed(1)},${(height - 2 - (p / max) * (height - 4)).toFixed(1)}`).join(" ")
  const latest = points.at(-1)
  const caption = latest === undefined ? "no data yet" : format(latest)
  return (
    <figure class="chart">
      <figcaption><strong>{title}</strong>: {caption}</figcaption>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${caption}`}>
        {points.length > 1 ? <polyline points={line} /> : null}
      </svg>
    </figure>
  )
}
