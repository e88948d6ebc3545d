import { TaskFamily } from '@gfts/contracts';

/** Fisher-Yates shuffle with an injectable random source (tests pin it). */
export function shuffle<T>(items: readonly T[], random: () => number = Math.random): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The candidates an assign may pick, in random order: every task of the family the gamer
 * does not hold active. The caller takes them in this order until it has enough, skipping
 * any a concurrent assign took first; so picks are distinct and never an active one.
 */
export function assignmentOrder<T extends { id: string }>(candidates: readonly T[], heldTaskIds: ReadonlySet<string>, random: () => number = Math.random): T[] {
  return shuffle(candidates.filter((c) => !heldTaskIds.has(c.id)), random);
}

/**
 * Why an assign's numberOfTasks is refused (400), or undefined: 1 to `max` tasks, except for
 * seasonal, which assigns every seasonal task "whatever numberOfTasks is" (spec 4.2, rule 1;
 * until 2026-11-29 it too had to be from 1 to 50).
 */
export function numberOfTasksProblem(family: TaskFamily, numberOfTasks: number, max: number): string | undefined {
  if (family === TaskFamily.SEASONAL) return undefined;
  if (numberOfTasks < 1 || numberOfTasks > max) return `numberOfTasks must be from 1 to ${max}`;
  return undefined;
}
