import { useEffect, useRef, useState } from 'preact/hooks';
import { failureKind, nextPollDelay, type PollOutcome } from './api/poll-delay.ts';

/**
 * One request at a time for an action (create a task, reset a gamer): `run` ignores a call
 * while the previous one runs, so a double click sends one request; `running` disables
 * the action's button meanwhile.
 */
export function useSingleFlight(): [running: boolean, run: (work: () => Promise<void>) => Promise<void>] {
  const inFlight = useRef(false);
  const [running, setRunning] = useState(false);
  const run = async (work: () => Promise<void>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setRunning(true);
    try {
      await work();
    } finally {
      inFlight.current = false;
      setRunning(false);
    }
  };
  return [running, run];
}

/**
 * Runs `load` now and again `everyMs` after each load has finished: never two at once, so
 * an older answer cannot land after a newer one. After a load that found the API
 * unavailable (429, 503, 504, no answer or none in time) the wait doubles up to 30 s (nextPollDelay). While the
 * tab is hidden nothing is loaded; it loads again as soon as the tab is shown. `load` throws
 * to report a failure (after showing it); `live()` turns false once the view is gone.
 */
export function usePoll(load: (live: () => boolean) => Promise<void>, everyMs: number, deps: unknown[]): void {
  useEffect(() => {
    let live = true;
    let running = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wait = everyMs;
    const poll = async () => {
      if (!document.hidden) {
        running = true;
        let outcome: PollOutcome = 'ok';
        try {
          await load(() => live);
        } catch (error) {
          outcome = failureKind(error);
        }
        running = false;
        wait = nextPollDelay(wait, everyMs, outcome);
      }
      if (live) timer = setTimeout(() => void poll(), wait);
    };
    const shown = () => {
      if (document.hidden || running || !live) return;
      clearTimeout(timer);
      void poll();
    };
    void poll();
    document.addEventListener('visibilitychange', shown);
    return () => {
      live = false;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', shown);
    };
  }, deps);
}
