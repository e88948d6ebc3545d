/**
 * The argument handling of a script that takes none: `--help` (or `-h`) prints its usage
 * and exits 0 before it writes anything; any other argument is refused with the usage
 * (exit 2), so a mistyped flag never rewrites files.
 */
export function takeNoArguments(usage: string, argv: string[] = process.argv.slice(2)): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  if (argv.length > 0) {
    console.error(`unknown argument ${JSON.stringify(argv[0])}\n\n${usage}`);
    process.exit(2);
  }
}
