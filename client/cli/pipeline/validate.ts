/** `sluice pipeline validate FILE`: a definition file checked offline, every issue with its stage, field, line and column. */
import { readFile } from 'node:fs/promises';
import { type PipelineIssue, validatePipeline } from '../../../contracts';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { type FilePlace, readPipelineSource } from './source';

/** An issue of a file: the definition's issue and where it is in the file. */
export type FileIssue = Omit<PipelineIssue, 'path'> & Partial<FilePlace>;

export type FileValidation =
  { ok: true; name: string; stages: string[]; issues: [] } | { ok: false; issues: FileIssue[] };

/** Validates the text of a definition file (YAML or JSON). */
export function validateText(text: string): FileValidation {
  const source = readPipelineSource(text);
  if (source.errors.length > 0) return { ok: false, issues: source.errors.map((e) => ({ code: 'FILE_SYNTAX', ...e })) };
  const v = validatePipeline(source.value);
  if (v.ok) return { ok: true, name: v.definition.name, stages: v.definition.stages.map((s) => s.name), issues: [] };
  const issues = v.issues.map(({ path, ...issue }): FileIssue => ({
    ...issue,
    ...source.locate(path, issue.position),
  }));
  return { ok: false, issues };
}

/** One line per issue: `stage "fields", field "when", line 12 col 11: message`. */
export function formatIssue(i: FileIssue): string {
  const where = [
    i.stage !== undefined && `stage "${i.stage}"`,
    i.field !== undefined && `field "${i.field}"`,
    i.line !== undefined && `line ${i.line} col ${i.column}`,
    i.line === undefined && i.position !== undefined && `position ${i.position}`,
  ].filter(Boolean);
  return `${where.join(', ')}${where.length ? ': ' : ''}${i.message}`;
}

/** The command's action: prints the verdict and returns 0 (valid) or 2 (invalid or unreadable). */
export async function validateCommand(file: string, o: { json?: boolean }): Promise<number> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const v = validateText(text);
  if (o.json) {
    console.log(
      JSON.stringify(v.ok ? { ok: true, name: v.name, stages: v.stages, errors: [] } : { ok: false, errors: v.issues }),
    );
  } else if (v.ok) {
    console.log(`ok: ${v.name}, ${v.stages.length} stage${v.stages.length === 1 ? '' : 's'} (${v.stages.join(' → ')})`);
  } else {
    console.error(`sluice: ${file}: ${v.issues.length} error${v.issues.length === 1 ? '' : 's'}`);
    for (const i of v.issues) console.error(`  ${formatIssue(i)}`);
  }
  return v.ok ? EXIT_CODES.ok : EXIT_CODES.usage;
}
