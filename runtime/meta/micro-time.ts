// metav1.MicroTime: the RFC 3339 timestamp with microseconds that Events and Leases carry.

/** `2006-01-02T15:04:05.000000Z` (JavaScript has milliseconds, so the last three digits are 0). */
export function microTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
