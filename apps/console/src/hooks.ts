import { useRef, useState } from 'preact/hooks';

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
