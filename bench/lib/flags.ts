// Command-line flags of the bench's hand-run probes (idle-rss.ts, cpu-per-launch.ts).

/** Every value given as `--name VALUE` in `argv`, in order (a repeated flag gives several). */
export function flagValues(argv: readonly string[], name: string): string[] {
  return argv.flatMap((value, index) => (argv[index - 1] === `--${name}` ? [value] : []));
}
