import { diffLines } from 'diff';

/** Props of `DiffView`. */
export type DiffViewProps = {
  /** What the diff is of, e.g. the file's path; names the region. */
  label: string;
  before: string;
  after: string;
};

/** The lines of a text, each with its newline taken off. */
function linesOf(value: string): string[] {
  const lines = value.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * A line diff of `before` against `after` (jsdiff): removed lines in
 * `<del>`, added ones in `<ins>`, each with its `-`/`+` sign, unchanged
 * lines as they are, so it reads the same with or without colour.
 */
export function DiffView({ label, before, after }: DiffViewProps) {
  const changes = diffLines(before, after);
  let added = 0;
  let removed = 0;
  const rows = changes.flatMap((change, index) =>
    linesOf(change.value).map((line, lineIndex) => {
      const key = `${index}-${lineIndex}`;
      if (change.added) {
        added += 1;
        return (
          <ins key={key} className="diff-line diff-added">
            {`+ ${line}`}
          </ins>
        );
      }
      if (change.removed) {
        removed += 1;
        return (
          <del key={key} className="diff-line diff-removed">
            {`- ${line}`}
          </del>
        );
      }
      return (
        <span key={key} className="diff-line">
          {`  ${line}`}
        </span>
      );
    }),
  );
  return (
    <figure className="diff" aria-label={`Changes to ${label}`}>
      <figcaption>
        {label} <span className="diff-stat">{`+${added} −${removed}`}</span>
      </figcaption>
      <pre tabIndex={0}>{rows}</pre>
    </figure>
  );
}
