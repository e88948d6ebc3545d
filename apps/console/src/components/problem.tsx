import { asProblem } from '../api/client.ts';

/** An API error as its problem details say it: title, detail, code and each invalid field. */
export function ProblemView({ error }: { error: unknown }) {
  if (!error) return null;
  const { status, problem } = asProblem(error);
  return (
    <div class="problem" role="alert">
      <strong>{problem.title ?? 'Error'}{status ? ` (${status}${problem.code ? ` ${problem.code}` : ''})` : ''}</strong>
      {problem.detail && <p>{problem.detail}</p>}
      {problem.errors && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e) => (
            <li key={`${e.path}:${e.message}`}><code>{e.path || '(body)'}</code> {e.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
