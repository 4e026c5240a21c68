/**
 * The layering of src/ (see ARCHITECTURE.md): rooms from the bottom up. A room
 * imports only from rooms below it, so no two rooms can import each other and
 * no folder cycle can form. `npm run lint` fails on a violation.
 */
const ROOMS = [
  ['support'],
  ['events'],
  ['tracing'],
  ['config'],
  ['schema'],
  ['uow'],
  ['idempotency'],
  ['dead-letters'],
  ['handlers'],
  ['scheduling'],
  ['ordering'],
  ['outbox'],
  ['router', 'event-store', 'metrics'],
  ['transports/redis', 'transports/sql'],
  // The deprecated alias of sqliteTransport(), so above transports/sql.
  ['transports/memory'],
  ['transports/select'],
  ['bus'],
  ['dashboard'],
  ['cli', 'testing'],
];

const dir = (room) => `^src/${room}/`;
const any = (rooms) => `(${rooms.map(dir).join('|')})`;

const layering = ROOMS.flatMap((level, i) => {
  const above = ROOMS.slice(i + 1).flat();
  const rules = [];
  for (const room of level) {
    const siblings = level.filter((other) => other !== room);
    const forbidden = [...above, ...siblings];
    if (forbidden.length === 0) continue;
    rules.push({
      name: `${room.replace('/', '-')}-imports-only-below`,
      comment: `src/${room} may import only from the rooms below it (see ARCHITECTURE.md)`,
      severity: 'error',
      from: { path: dir(room) },
      to: { path: any(forbidden) },
    });
  }
  return rules;
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'modules must not import each other in a circle',
      severity: 'error',
      from: { path: '^src/' },
      // Type-only imports between two files of one room (an operation names its unit of work) are not cycles at run time.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'root-is-not-imported',
      comment: 'src/index.ts is the package root: rooms import each other, never the root',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'rooms-are-known',
      comment: 'every folder under src/ is a room listed in .dependency-cruiser.cjs and ARCHITECTURE.md',
      severity: 'error',
      from: { path: '^src/', pathNot: [`^src/index\\.ts$`, ...ROOMS.flat().map(dir)] },
      to: {},
    },
    ...layering,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
