import { useEffect, useState } from 'react';

/** "4:59", "1:02:03": what is left of `milliseconds`, rounded down to the second. */
export function formatLeft(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${minutes}:${seconds}`;
}

/** The clock a countdown reads unless told otherwise (one function, so the timer is not reset each render). */
const systemNow = (): number => Date.now();

/**
 * A deadline counted down each second ("expires in 4:59"); "expired" once
 * it passed (the server settles the call on its next sweep). The text is
 * not a live region: a screen reader is not interrupted every second.
 */
export function Countdown({ deadline, now = systemNow }: { deadline: string; now?: () => number }) {
  const end = Date.parse(deadline);
  const [left, setLeft] = useState(() => end - now());
  useEffect(() => {
    const timer = setInterval(() => setLeft(end - now()), 1000);
    return () => clearInterval(timer);
  }, [end, now]);
  return (
    <p className="countdown">
      <time dateTime={deadline}>{left > 0 ? `expires in ${formatLeft(left)}` : 'expired'}</time>
    </p>
  );
}
