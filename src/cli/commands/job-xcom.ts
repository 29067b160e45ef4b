// `yacron2 xcom push|pull|list`: values passed between the tasks of one DAG run (docs/dags.md
// "XCom", docs/cli.md "Job-facing commands"): artifacts in the run's scope
// ($YACRON2_DAG_XCOM_SCOPE) named `<taskkey>/<key>`, through the job API's artifact routes.
import {
  EXIT_OK,
  EXIT_USAGE,
  fail,
  type JobCommand,
  type JobContext,
} from '../job-client/job-command.js';
import {
  OUTPUT_OPTION,
  getArtifact,
  listArtifacts,
  putArtifact,
  readInput,
} from './job-artifact.js';

const KEY = {
  key: 'key',
  long: '--key',
  kind: 'string',
  metavar: 'KEY',
  help: 'the XCom key (required)',
} as const;

/** The run's XCom scope, or an exit code outside a DAG task. */
function xcomScope(context: JobContext): string | number {
  const scope = context.env['YACRON2_DAG_XCOM_SCOPE'];
  if (scope === undefined || scope === '') {
    return fail(
      context,
      'not running inside a yacron2 DAG task: YACRON2_DAG_XCOM_SCOPE is not set (xcom commands exchange values between the tasks of one DAG run)',
    );
  }
  return scope;
}

function required(context: JobContext, value: string | undefined, flag: string): string | number {
  if (value === undefined || value === '') {
    return fail(context, `the following arguments are required: ${flag}`, EXIT_USAGE);
  }
  return value;
}

export const xcomCommand: JobCommand = {
  name: 'xcom',
  summary: 'Values passed between the tasks of a DAG run.',
  actions: [
    {
      name: 'push',
      usageName: 'yacron2 xcom push',
      summary: "Publish FILE (or stdin) as this task's XCom KEY.",
      positionals: [{ name: 'FILE', optional: true, help: 'the value; - or none = stdin' }],
      options: [KEY],
      scoped: false,
      async run(context, args) {
        const key = required(context, args.string('key'), '--key');
        if (typeof key === 'number') return key;
        const scope = xcomScope(context);
        if (typeof scope === 'number') return scope;
        const taskKey = context.env['YACRON2_DAG_TASKKEY'];
        if (taskKey === undefined || taskKey === '') {
          return fail(context, 'YACRON2_DAG_TASKKEY is not set: cannot name the value');
        }
        const bytes = await readInput(context, args.positionals[0]);
        if (typeof bytes === 'number') return bytes;
        const sha256 = await putArtifact(context, { name: `${taskKey}/${key}`, scope }, bytes);
        return typeof sha256 === 'number' ? sha256 : EXIT_OK;
      },
    },
    {
      name: 'pull',
      usageName: 'yacron2 xcom pull',
      summary: 'Write the XCom KEY of task TASK (instance I of a mapped task) to FILE or stdout.',
      positionals: [],
      options: [
        {
          key: 'task',
          long: '--task',
          kind: 'string',
          metavar: 'TASK',
          help: 'the task id (required)',
        },
        KEY,
        {
          key: 'mapIndex',
          long: '--map-index',
          kind: 'int',
          metavar: 'I',
          help: 'the instance of a mapped task',
        },
        OUTPUT_OPTION,
      ],
      scoped: false,
      async run(context, args) {
        const task = required(context, args.string('task'), '--task');
        if (typeof task === 'number') return task;
        const key = required(context, args.string('key'), '--key');
        if (typeof key === 'number') return key;
        const scope = xcomScope(context);
        if (typeof scope === 'number') return scope;
        const index = args.number('mapIndex');
        const taskKey = index === undefined ? task : `${task}#${index}`;
        return getArtifact(
          context,
          { name: `${taskKey}/${key}`, scope },
          `no xcom '${key}' from task '${task}'`,
          args.string('output'),
        );
      },
    },
    {
      name: 'list',
      usageName: 'yacron2 xcom list',
      summary: 'Print the XCom names of the run (`taskkey/key`), one per line.',
      positionals: [],
      options: [],
      scoped: false,
      async run(context) {
        const scope = xcomScope(context);
        if (typeof scope === 'number') return scope;
        return listArtifacts(context, { scope });
      },
    },
  ],
};
