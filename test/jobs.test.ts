import { join } from 'node:path';
import { JobsFileError, parseJobs, readJobsFile } from '../src/client/jobs';

const fixture = (name: string) => join(__dirname, 'fixtures', 'jobs', name);

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof JobsFileError) return err.problems;
    throw err;
  }
  throw new Error('expected a JobsFileError');
}

test('JSONL: ids kept (numbers as text), missing ids numbered by position, context carried', () => {
  expect(readJobsFile(fixture('good.jsonl'))).toEqual([
    { id: 'heat-pumps', task: 'Compare heat pumps and gas boilers' },
    { id: 'job-0002', task: 'Summarise the 2024 EU battery regulation', context: 'Focus on recycling quotas' },
    { id: '7', task: 'Who invented the transistor?' },
  ]);
});

test('JSONL: every bad line is reported with its line number, before anything runs', () => {
  const problems = problemsOf(() => readJobsFile(fixture('bad.jsonl')));
  expect(problems).toEqual([
    expect.stringMatching(/^line 2: task: .*expected string.*Unrecognized key: "taks"/),
    expect.stringMatching(/^line 3: not valid JSON/),
    'line 4: duplicate id "a" (first on line 1)',
  ]);
  // The message names the file, one problem per line.
  expect(() => readJobsFile(fixture('bad.jsonl'))).toThrow(`${fixture('bad.jsonl')}: line 3: not valid JSON`);
});

test('CSV: a header with task, optional id and context; quoted commas survive', () => {
  expect(readJobsFile(fixture('good.csv'))).toEqual([
    { id: 'q1', task: 'What is a heat pump, and how does it work?' },
    { id: 'q2', task: 'Why is the sky blue?', context: 'Answer for a ten-year-old' },
  ]);
  expect(problemsOf(() => readJobsFile(fixture('bad-header.csv')))).toEqual([
    'line 1: the header needs a "task" column (found: id, question)',
  ]);
});

test('plain lines: one task per non-empty line, ids job-0001...', () => {
  expect(readJobsFile(fixture('questions.txt'))).toEqual([
    { id: 'job-0001', task: 'What is a heat pump?' },
    { id: 'job-0002', task: 'Why is the sky blue?' },
    { id: 'job-0003', task: 'How do transistors work?' },
  ]);
});

test('ids must be safe in workflow ids and file names; an empty file is an error', () => {
  expect(problemsOf(() => parseJobs('{"id": "../etc/passwd", "task": "x"}\n', 'jobs.jsonl', 'jsonl'))).toEqual([
    expect.stringContaining('line 1: id "../etc/passwd" must be 1-100 letters, digits'),
  ]);
  expect(problemsOf(() => parseJobs('\n\n', 'jobs.txt', 'lines'))).toEqual(['no jobs in the file']);
  expect(problemsOf(() => readJobsFile(fixture('nope.jsonl')))[0]).toMatch(/cannot read jobs file: ENOENT/);
});
