// Command apeval replays recorded tool.before contexts through a policy's
// deterministic matchers and judge models, and reports whether each judge may
// go live (see README.md and docs/).
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
