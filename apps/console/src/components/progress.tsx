/** A gamer task's progress toward its target, as a native <progress> with the figures beside it. */
export function Progress({ value, target, label }: { value: number; target: number; label: string }) {
  return (
    <span class="progress">
      <progress value={Math.min(value, target)} max={target} aria-label={label} />
      <span class="figures">{value} / {target}</span>
    </span>
  );
}
