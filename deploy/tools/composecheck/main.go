// Command composecheck validates Compose files offline, the way `docker compose config`
// does, with the same library (compose-spec/compose-go, which embeds the Compose
// Specification JSON schema): YAML, variable interpolation, the schema (unknown keys
// rejected), then the model's consistency (every network, volume, secret and
// depends_on target a service names must exist).
//
//	composecheck [-env KEY=VALUE]... docker-compose.yml [override.yml...]
//
// Exit status 0 when valid; 1 with the reason otherwise. With -print the resolved model
// is written to stdout as YAML.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

type envFlags []string

func (e *envFlags) String() string     { return strings.Join(*e, ",") }
func (e *envFlags) Set(v string) error { *e = append(*e, v); return nil }

func main() {
	var env envFlags
	print := flag.Bool("print", false, "print the resolved model as YAML")
	flag.Var(&env, "env", "KEY=VALUE to interpolate with, instead of the process environment (repeatable)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: composecheck [-print] [-env KEY=VALUE]... COMPOSE_FILE [OVERRIDE_FILE...]")
		os.Exit(2)
	}
	wd, err := filepath.Abs(filepath.Dir(flag.Arg(0)))
	if err != nil {
		fail(err)
	}
	opts := []cli.ProjectOptionsFn{
		cli.WithWorkingDirectory(wd),
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(true),
	}
	if len(env) > 0 {
		opts = append(opts, cli.WithEnv(env))
	} else {
		opts = append(opts, cli.WithOsEnv, cli.WithDotEnv)
	}
	options, err := cli.NewProjectOptions(flag.Args(), opts...)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	if *print {
		out, err := project.MarshalYAML()
		if err != nil {
			fail(err)
		}
		os.Stdout.Write(out)
		return
	}
	fmt.Printf("%s: valid Compose project %q: %s\n", strings.Join(flag.Args(), ", "), project.Name, summary(project))
}

func summary(p *types.Project) string {
	names := p.ServiceNames()
	sort.Strings(names)
	return fmt.Sprintf("%d services (%s), %d networks, %d volumes", len(names), strings.Join(names, ", "), len(p.Networks), len(p.Volumes))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "composecheck: %v\n", err)
	os.Exit(1)
}
